/**
 * The account page's newsletter part (docs/decisions.md "The marketing modules"): whether the reader receives the
 * newsletter of new titles, and the button that turns it off (or on again). Shares the home's query, so the home's
 * promo follows at once.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type HomeModules, MARKETING_MESSAGES } from '@lectern/core';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';

export function NewsletterSection({ userUuid }: { userUuid: string }) {
  const queryClient = useQueryClient();
  const key = queryKeys.homeModules(userUuid);
  const modules = useQuery({ queryKey: key, queryFn: ({ signal }) => api.homeModules(signal), staleTime: 60_000 });
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const newsletter = modules.data?.newsletter;
  if (!newsletter) return null;
  const change = (subscribed: boolean) => {
    setBusy(true);
    setFailed(false);
    api
      .setNewsletter(subscribed)
      .then((r) => queryClient.setQueryData<HomeModules>(key, (m) => (m?.newsletter ? { ...m, newsletter: { ...m.newsletter, subscribed: r.subscribed } } : m)))
      .catch(() => setFailed(true))
      .finally(() => setBusy(false));
  };
  return (
    <section className="account__section" aria-labelledby="newsletter" data-account-section="newsletter">
      <h2 id="newsletter">{MARKETING_MESSAGES.accountNewsletterHeading}</h2>
      <p className="account__muted" role="status">
        {newsletter.subscribed ? MARKETING_MESSAGES.accountNewsletterOn : MARKETING_MESSAGES.accountNewsletterOff}
      </p>
      {failed ? <Notice tone="error">{MARKETING_MESSAGES.newsletterFailed}</Notice> : null}
      <div className="account__actions">
        <Button variant="secondary" busy={busy} onClick={() => change(!newsletter.subscribed)}>
          {newsletter.subscribed ? MARKETING_MESSAGES.accountNewsletterUnsubscribe : MARKETING_MESSAGES.accountNewsletterSubscribe}
        </Button>
      </div>
    </section>
  );
}
