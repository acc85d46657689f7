/**
 * The first operator's set-up (docs/decisions.md "The first operator, from the browser"): the page the one-time link
 * printed at the start opens while no admin exists. Email and password (registration's checks and words), and the new
 * admin lands in the operators' console, signed in. A spent or wrong link says so and sends to sign-in.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, FIRST_OPERATOR_MESSAGES } from '@lectern/core';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { NewPasswordField } from '../../shared/NewPasswordField.tsx';
import './LoginPage.css';
import './RegisterPage.css';

export function FirstOperatorPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const live = useQuery({ queryKey: ['first-operator-link', token], queryFn: ({ signal }) => api.isFirstOperatorLinkLive(token, signal), enabled: !!token, retry: false, staleTime: Infinity });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [detail, setDetail] = useState<string | null>(null);
  const [dead, setDead] = useState(false);
  const [busy, setBusy] = useState(false);

  if (token && live.isPending) return <PageLoading />;
  const linkDead = dead || !token || live.data === false || live.isError;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '').trim();
    const password = String(form.get('password') ?? '');
    const missing: FieldErrors = {};
    if (!email) missing.email = [ACCOUNT_ENTRY_MESSAGES.required];
    if (!password) missing.password = [ACCOUNT_ENTRY_MESSAGES.required];
    if (Object.keys(missing).length) return fail(missing);
    setBusy(true);
    setDetail(null);
    try {
      await api.createFirstOperator({ token, email, password });
      api.clearCollectionsCache();
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'profile' });
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      navigate(appPaths.console, { replace: true });
    } catch (e) {
      if (isApiError(e) && e.status === 404) setDead(true);
      else if (isApiError(e) && (e.errors.email || e.errors.password)) fail(e.errors);
      else setDetail(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  function fail(next: FieldErrors) {
    setErrors(next);
    const first = ['email', 'password'].find((name) => next[name]?.length);
    if (first) requestAnimationFrame(() => (formRef.current?.elements.namedItem(first) as HTMLInputElement | null)?.focus());
  }

  return (
    <div className="login">
      <title>{`${FIRST_OPERATOR_MESSAGES.heading} · Lectern`}</title>
      <div className="login__panel">
        <h1 className="login__heading">{FIRST_OPERATOR_MESSAGES.heading}</h1>
        {linkDead ? (
          <Notice tone="error" className="login__notice">
            {FIRST_OPERATOR_MESSAGES.linkDead} <Link to={appPaths.login()}>Sign in</Link>
          </Notice>
        ) : (
          <>
            <p>{FIRST_OPERATOR_MESSAGES.intro}</p>
            {detail ? (
              <Notice tone="error" className="login__notice" role="alert">
                {detail}
              </Notice>
            ) : null}
            <form className="login__form" onSubmit={(e) => void onSubmit(e)} noValidate ref={formRef}>
              <TextField label="Email" name="email" type="email" autoComplete="email" onChange={() => setErrors((e) => ({ ...e, email: [] }))} errors={errors.email?.length ? errors.email : undefined} />
              <NewPasswordField
                email={() => String(new FormData(formRef.current ?? undefined).get('email') ?? '')}
                errors={errors.password}
                onValue={() => setErrors((prev) => ({ ...prev, password: [] }))}
              />
              <Button type="submit" size="lg" className="login__submit" busy={busy}>
                {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : FIRST_OPERATOR_MESSAGES.submit}
              </Button>
            </form>
          </>
        )}
      </div>
    </div>
  );
}

export default FirstOperatorPage;
