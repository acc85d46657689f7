/** The page a "forgot password" link opens: a new password (checked by the server as it is typed), used once. */
import { useQuery } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { appPaths } from '../../shared/links.ts';
import { NewPasswordField } from '../../shared/NewPasswordField.tsx';
import './LoginPage.css';
import './RegisterPage.css';

export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const live = useQuery({ queryKey: ['reset-link', token], queryFn: ({ signal }) => api.isResetLinkLive(token, signal), enabled: !!token, retry: false });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (token && live.isPending) return <PageLoading />;
  const dead = !token || live.data === false || !!errors.token;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('new_password') ?? '');
    if (!password) return setErrors({ new_password: [ACCOUNT_ENTRY_MESSAGES.required] });
    setBusy(true);
    try {
      setDone((await api.resetPassword(token, password)).detail);
    } catch (e) {
      setErrors(isApiError(e) ? e.errors : { new_password: [String(e)] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <title>Choose a new password · Lectern</title>
      <div className="login__panel">
        <h1 className="login__heading">Choose a new password</h1>
        {done ? (
          <Notice tone="success" className="login__notice">
            {done} <Link to={appPaths.login()}>Sign in</Link>
          </Notice>
        ) : dead ? (
          <Notice tone="error" className="login__notice">
            {ACCOUNT_ENTRY_MESSAGES.resetLinkDead} <Link to={appPaths.forgotPassword}>Ask for a new link</Link>
          </Notice>
        ) : (
          <form className="login__form" onSubmit={(e) => void onSubmit(e)} noValidate>
            <NewPasswordField label="New password" name="new_password" errors={errors.new_password} onValue={() => setErrors({})} />
            <Button type="submit" size="lg" className="login__submit" busy={busy}>
              {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Save the new password'}
            </Button>
          </form>
        )}
      </div>
    </div>
  );
}

export default ResetPasswordPage;
