/**
 * The page an invitation link opens (docs/decisions.md "Teams"): which team invites whom; a signed-in reader joins with
 * one button, a visitor chooses a password (checked by the server as it is typed) and is signed up and in with the
 * invited address, and a visitor whose address has an account is sent to sign in and back here.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, TEAM_MESSAGES, teamPaths } from '@lectern/core';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { useSession } from '../../shared/useSession.ts';
import { formatDate } from './money.ts';
import { NewPasswordField } from '../../shared/NewPasswordField.tsx';
import './LoginPage.css';
import './RegisterPage.css';

export function TeamJoinPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { profile, isLoading } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const info = useQuery({ queryKey: ['team-invitation', token], queryFn: ({ signal }) => api.getTeamInvitation(token, signal), enabled: !!token, retry: false });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  /** The keyboard focus on the password when a reason shows under it (a screen reader reads it there). */
  const focusPassword = () => requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('input[name="password"]')?.focus());

  if (isLoading || (token && info.isPending)) return <PageLoading />;
  const dead = !token || info.isError || !!errors.token;

  const accept = async (password?: string) => {
    setBusy(true);
    setError(null);
    try {
      const team = await api.acceptTeamInvitation(token, password);
      queryClient.setQueryData(queryKeys.team, team);
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      await queryClient.invalidateQueries({ queryKey: ['subscription'] });
      navigate(appPaths.account, { state: { notice: TEAM_MESSAGES.joined(team?.name ?? info.data?.team_name ?? '') } });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      const errs = isApiError(e) ? e.errors : {};
      setErrors(errs);
      setBusy(false);
      if (errs.password) focusPassword();
    }
  };

  const onSignUp = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget).get('password') ?? '');
    if (!password) {
      setErrors({ password: [ACCOUNT_ENTRY_MESSAGES.required] });
      focusPassword();
      return;
    }
    await accept(password);
  };

  const invitation = info.data;
  const back = teamPaths.acceptPage(token);

  return (
    <div className="login">
      <title>Join a team · Lectern</title>
      <div className="login__panel">
        <h1 className="login__heading">{invitation && !dead ? `Join ${invitation.team_name}` : 'Join a team'}</h1>
        {dead ? (
          <Notice tone="error" className="login__notice" dismissible={false}>
            {errors.token?.[0] ?? TEAM_MESSAGES.invitationDead} <Link to={appPaths.home}>Go to the library</Link>
          </Notice>
        ) : invitation ? (
          <>
            <p className="login__lede">
              {invitation.owner_email ?? 'The team owner'} invites <strong>{invitation.email}</strong> to read with {invitation.team_name}. The link works until{' '}
              {formatDate(invitation.expires_at)}.
            </p>
            {error && !errors.password ? (
              <Notice tone="error" className="login__notice">
                {error}
              </Notice>
            ) : null}
            {profile ? (
              <>
                <p className="account__muted">You are signed in as {profile.account.email}.</p>
                <Button size="lg" className="login__submit" busy={busy} onClick={() => void accept()}>
                  {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : `Join ${invitation.team_name}`}
                </Button>
              </>
            ) : invitation.account_exists ? (
              <Notice tone="info" className="login__notice" dismissible={false}>
                {TEAM_MESSAGES.invitationAccountExists} <Link to={appPaths.login(back)}>Sign in</Link>
              </Notice>
            ) : (
              <form ref={form} className="login__form" onSubmit={(e) => void onSignUp(e)} noValidate>
                <p className="account__muted">{TEAM_MESSAGES.invitationSignIn}</p>
                <TextField label="Email" name="email" type="email" value={invitation.email} readOnly autoComplete="username" />
                <NewPasswordField email={() => info.data?.email ?? ''} errors={errors.password} onValue={() => setErrors({})} />
                <Button type="submit" size="lg" className="login__submit" busy={busy}>
                  {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Create my account and join'}
                </Button>
                <p className="login__footer">
                  Have an account with another address? <Link to={appPaths.login(back)}>Sign in</Link> and come back to this link.
                </p>
              </form>
            )}
          </>
        ) : null}
      </div>
    </div>
  );
}

export default TeamJoinPage;
