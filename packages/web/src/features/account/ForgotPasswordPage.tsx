/**
 * "Forgot password" (docs/decisions.md "Joining"): asks for a one-time link; says the same whether or not the address
 * has an account.
 */
import { ACCOUNT_ENTRY_MESSAGES } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { forgetCarriedEmail, useCarriedEmail } from './carriedEmail.ts';
import './LoginPage.css';

export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const carriedEmail = useCarriedEmail();
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    if (!email) return setError(ACCOUNT_ENTRY_MESSAGES.required);
    setBusy(true);
    setError(null);
    try {
      setSent((await api.requestPasswordReset(email)).detail);
      // the link is on its way: the next person at this computer does not find the address on the sign-in page
      forgetCarriedEmail();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="login">
      <title>Forgot your password? · Lectern</title>
      <div className="login__panel">
        <h1 className="login__heading">Forgot your password?</h1>
        <p className="login__lede">Give the email of your account and we will send it a link to choose a new one.</p>
        {sent ? (
          <Notice tone="success" className="login__notice">
            {sent}
          </Notice>
        ) : (
          <form className="login__form" onSubmit={(e) => void onSubmit(e)} noValidate>
            <TextField label="Email" name="email" type="email" autoComplete="email" inputMode="email" required errors={error ? [error] : undefined} {...carriedEmail} />
            <Button type="submit" size="lg" className="login__submit" busy={busy}>
              {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Send me a link'}
            </Button>
          </form>
        )}
        <p className="login__footer">
          <Link to={appPaths.login()}>Back to sign in</Link>
        </p>
      </div>
    </div>
  );
}

export default ForgotPasswordPage;
