/**
 * The page a newsletter's unsubscribe link opens (docs/decisions.md "The marketing modules"), without signing in: it
 * says which address the link stands for and asks; the button unsubscribes (a POST with the page's CSRF token, the
 * signed link as authority). Opening the link changes nothing, so a mail scanner following it unsubscribes no one; a
 * second click says so.
 */
import { useQuery } from '@tanstack/react-query';
import { MARKETING_MESSAGES } from '@lectern/core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { appPaths } from '../../shared/links.ts';
import './LoginPage.css';

export function UnsubscribePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const state = useQuery({ queryKey: ['unsubscribe', token], queryFn: ({ signal }) => api.unsubscribeState(token, signal), enabled: !!token, retry: false });
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  if (token && state.isPending) return <PageLoading />;

  const unsubscribe = () => {
    setBusy(true);
    setFailed(false);
    api
      .unsubscribe(token)
      .then((r) => setDone(r.email))
      .catch(() => setFailed(true))
      .finally(() => setBusy(false));
  };

  return (
    <div className="login">
      <title>{`${MARKETING_MESSAGES.unsubscribeTitle} · Lectern`}</title>
      <div className="login__panel">
        <h1 className="login__heading">{MARKETING_MESSAGES.unsubscribeTitle}</h1>
        {!token || state.isError ? (
          <Notice tone="error" className="login__notice" dismissible={false}>
            {MARKETING_MESSAGES.unsubscribeBadLink} <Link to={appPaths.account}>{MARKETING_MESSAGES.accountNewsletterHeading}</Link>
          </Notice>
        ) : done ? (
          <Notice tone="success" className="login__notice" role="status" dismissible={false}>
            {MARKETING_MESSAGES.unsubscribeDone(done)}
          </Notice>
        ) : !state.data?.subscribed ? (
          <Notice tone="info" className="login__notice" dismissible={false}>
            {MARKETING_MESSAGES.unsubscribeAlready(state.data?.email ?? '')}
          </Notice>
        ) : (
          <>
            <p>{MARKETING_MESSAGES.unsubscribeQuestion(state.data.email)}</p>
            {failed ? (
              <Notice tone="error" className="login__notice" role="alert" dismissible={false}>
                {MARKETING_MESSAGES.unsubscribeFailed}
              </Notice>
            ) : null}
            <Button size="lg" className="login__submit" busy={busy} onClick={unsubscribe}>
              {MARKETING_MESSAGES.unsubscribeButton}
            </Button>
          </>
        )}
      </div>
    </div>
  );
}

export default UnsubscribePage;
