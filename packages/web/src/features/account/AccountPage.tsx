/**
 * The account page /u (docs/decisions.md "Teams"): plan, trial end, status, team and invoices; subscribe / upgrade /
 * cancel / reactivate where the state allows; the password (with §5's confirmation messages) and the email; signing out
 * the other sessions.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, SHORTCUT_MESSAGES, SHORTCUTS_PAGE_PATH, type Subscription } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button, ButtonLink } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { TextField } from '../../components/TextField.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { usePlanName } from '../../shared/plans.ts';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatDate, formatPrice } from './money.ts';
import { NewsletterSection } from './NewsletterSection.tsx';
import { TeamSection } from './TeamSection.tsx';
import { NewPasswordField } from '../../shared/NewPasswordField.tsx';
import type { LiveCheck } from '../../shared/useLiveCheck.ts';
import './AccountPage.css';

const STATUS_LABEL: Record<Subscription['status'], string> = {
  trial: 'Free trial',
  subscriber: 'Subscriber',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

/** §5 password confirmation: what to say under the confirmation field. */
function confirmationMessage(next: string, nextValid: boolean | null, confirm: string): { ok: boolean; text: string } | null {
  if (!confirm) return null;
  if (!next) return { ok: false, text: ACCOUNT_ENTRY_MESSAGES.confirmNeedsNew };
  if (nextValid === false) return { ok: false, text: ACCOUNT_ENTRY_MESSAGES.confirmNeedsValidNew };
  if (confirm.length < 6) return null;
  return confirm === next ? { ok: true, text: ACCOUNT_ENTRY_MESSAGES.confirmMatch } : { ok: false, text: ACCOUNT_ENTRY_MESSAGES.confirmMismatch };
}

function Membership({ subscription, onChange }: { subscription: Subscription; onChange: (s: Subscription) => void }) {
  const [busy, setBusy] = useState<'cancel' | 'reactivate' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (which: 'cancel' | 'reactivate') => {
    setBusy(which);
    setError(null);
    try {
      onChange(which === 'cancel' ? await api.cancelSubscription() : await api.reactivateSubscription());
      // counted once the server took it, as subscribes are (SubscribePage)
      track('subscription', which, subscription.plan ?? '');
      setConfirming(false);
      if (which === 'cancel') track('account', 'subscription-cancelled', subscription.plan ?? '');
    } catch (e) {
      track('subscription', `${which}-refused`, subscription.plan ?? '');
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  const s = subscription;
  const planName = usePlanName();
  return (
    <section className="account__section" aria-labelledby="membership">
      <h2 id="membership">Membership</h2>
      <dl className="account__facts">
        <dt>Status</dt>
        <dd>
          <span className={`account__status account__status--${s.status}`}>{STATUS_LABEL[s.status]}</span>
        </dd>
        <dt>Plan</dt>
        <dd>{planName(s.plan)}</dd>
        {s.status === 'trial' || (s.trial_ends_at && !s.subscription_ends_at) ? (
          <>
            <dt>Trial ends</dt>
            <dd>
              {formatDate(s.trial_ends_at)}
              {s.trial_ends_at ? <> (<RelativeTime at={s.trial_ends_at} />)</> : null}
            </dd>
          </>
        ) : null}
        {s.subscription_ends_at ? (
          <>
            <dt>{s.status === 'subscriber' ? 'Renews on' : s.status === 'cancelled' ? 'Reading until' : 'Ended on'}</dt>
            <dd>
              {formatDate(s.subscription_ends_at)} (<RelativeTime at={s.subscription_ends_at} />)
            </dd>
          </>
        ) : null}
      </dl>
      {error ? <Notice tone="error">{error}</Notice> : null}
      <div className="account__actions">
        {s.can.subscribe ? <ButtonLink to={appPaths.subscribe()}>Subscribe</ButtonLink> : null}
        {s.can.upgrade ? <ButtonLink to={appPaths.subscribe('pro')}>Upgrade to {planName('pro')}</ButtonLink> : null}
        {s.can.reactivate ? (
          s.status === 'cancelled' ? (
            <Button busy={busy === 'reactivate'} onClick={() => void act('reactivate')}>
              Reactivate
            </Button>
          ) : (
            <ButtonLink to={appPaths.subscribe(s.plan === 'pro' ? 'pro' : undefined)}>Reactivate</ButtonLink>
          )
        ) : null}
        {s.can.cancel && !confirming ? (
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Cancel subscription
          </Button>
        ) : null}
      </div>
      {confirming ? (
        <div className="account__confirm" role="group" aria-label="Cancel subscription">
          <p>You keep reading until {formatDate(s.subscription_ends_at)}; after that your playlists, notes and progress wait for you.</p>
          <div className="account__actions">
            <Button variant="danger" busy={busy === 'cancel'} onClick={() => void act('cancel')}>
              Yes, cancel it
            </Button>
            <Button variant="secondary" onClick={() => setConfirming(false)}>
              Keep my subscription
            </Button>
          </div>
        </div>
      ) : null}
      {s.invoices.length ? (
        <>
          <h3>Invoices</h3>
          {/* On a phone the table scrolls sideways: the region takes the focus so the keyboard can scroll it too. */}
          <div className="account__table-wrap" role="region" aria-label="Invoices" tabIndex={0}>
            <table className="account__table">
              <thead>
                <tr>
                  <th scope="col">Issued</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Period</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {s.invoices.map((i) => (
                  <tr key={i.id}>
                    <td>{formatDate(i.created_at)}</td>
                    <td>
                      {planName(i.plan)}
                      {i.seats ? ` · team, ${i.seats} seat${i.seats === 1 ? '' : 's'}` : ''}
                    </td>
                    <td>
                      {formatDate(i.period_start)} – {formatDate(i.period_end)}
                    </td>
                    <td>{formatPrice(i.amount_cents, i.currency)}</td>
                    <td>{i.status === 'paid' ? `Paid ${formatDate(i.paid_at)}` : i.status === 'open' ? 'Open' : 'Void'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** the new password's live check (NewPasswordField), for the confirmation's words (§5) */
  const [check, setCheck] = useState<LiveCheck>({ state: 'idle' });
  /** a changed password starts a new field: its check forgotten with its value */
  const [fieldKey, setFieldKey] = useState(0);
  const nextValid = check.state === 'ok' ? true : check.state === 'error' ? false : null;
  const confirmation = confirmationMessage(next, nextValid, confirm);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!confirmation?.ok) {
      setErrors({ confirm: [confirmation?.text ?? ACCOUNT_ENTRY_MESSAGES.confirmMismatch] });
      return;
    }
    setBusy(true);
    setDone(null);
    try {
      const { signed_out } = await api.changePassword(current, next);
      setDone(`Your password is changed.${signed_out ? ` ${signed_out} other session${signed_out === 1 ? ' was' : 's were'} signed out.` : ''}`);
      setCurrent('');
      setNext('');
      setConfirm('');
      setErrors({});
      setFieldKey((k) => k + 1);
    } catch (err) {
      setErrors(isApiError(err) ? err.errors : { current_password: [String(err)] });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="account__section" aria-labelledby="password">
      <h2 id="password">Password</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <form className="account__form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <TextField label="Current password" name="current_password" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.currentTarget.value)} errors={errors.current_password} />
        <NewPasswordField key={fieldKey} label="New password" name="new_password" hint={false} value={next} onValue={setNext} onResult={setCheck} errors={errors.new_password} />
        <TextField
          label="Repeat the new password"
          name="confirm"
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => {
            setConfirm(e.currentTarget.value);
            setErrors(({ confirm: _gone, ...rest }) => rest);
          }}
          errors={errors.confirm ?? (confirmation && !confirmation.ok ? [confirmation.text] : undefined)}
        />
        {confirmation?.ok ? <p className="register__good">{confirmation.text}</p> : null}
        <div>
          <Button type="submit" busy={busy}>
            {busy ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Change password'}
          </Button>
        </div>
      </form>
    </section>
  );
}

function EmailForm({ email }: { email: string }) {
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    // React empties currentTarget once the handler returns: keep the form for after the await
    const form = e.currentTarget;
    const data = new FormData(form);
    setBusy(true);
    setDone(null);
    try {
      const profile = await api.changeEmail(String(data.get('current_password') ?? ''), String(data.get('email') ?? '').trim());
      queryClient.setQueryData(queryKeys.profile, profile);
      setDone(`Your email is now ${profile.account.email}.`);
      setErrors({});
      form.reset();
    } catch (err) {
      setErrors(isApiError(err) ? err.errors : { email: [String(err)] });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="account__section" aria-labelledby="email">
      <h2 id="email">Email</h2>
      <p className="account__muted">Now: {email}</p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <form className="account__form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <TextField label="New email" name="email" type="email" autoComplete="email" errors={errors.email} />
        <TextField label="Current password" name="current_password" type="password" autoComplete="current-password" errors={errors.current_password} />
        <div>
          <Button type="submit" busy={busy}>
            Change email
          </Button>
        </div>
      </form>
    </section>
  );
}

function Sessions() {
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signOutOthers = async () => {
    setBusy(true);
    setDone(null);
    setError(null);
    try {
      const { signed_out } = await api.signOutOtherSessions();
      setDone(signed_out ? `Signed out ${signed_out} other session${signed_out === 1 ? '' : 's'}.` : 'No other session was signed in.');
    } catch (e) {
      // a refusal shown as Membership shows its own, not left an unhandled rejection nobody sees
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="account__section" aria-labelledby="sessions">
      <h2 id="sessions">Signed-in devices</h2>
      <p className="account__muted">Signed in on a shared computer, or lost a phone? Sign out everywhere but here.</p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {error ? <Notice tone="error">{error}</Notice> : null}
      <div className="account__actions">
        <Button variant="secondary" busy={busy} onClick={() => void signOutOthers()}>
          Sign out other sessions
        </Button>
      </div>
    </section>
  );
}

export function AccountPage() {
  const { profile, isLoading } = useSession();
  const signIn = useSignInPath(!isLoading && !profile);
  const location = useLocation();
  const queryClient = useQueryClient();
  const subscription = useQuery({ queryKey: ['subscription'], queryFn: ({ signal }) => api.getSubscription(signal), enabled: !!profile });
  if (isLoading) return <PageLoading />;
  if (!profile) return <Navigate to={signIn} replace />;
  const notice = (location.state as { notice?: unknown } | null)?.notice;
  return (
    <div className="page account">
      <title>Your account · Lectern</title>
      <h1 className="account__heading">Your account</h1>
      <p className="account__muted">
        {profile.username} · {profile.account.email}
        {profile.account.team ? ` · team ${profile.account.team}` : ''}
      </p>
      {typeof notice === 'string' ? <Notice tone="success">{notice}</Notice> : null}
      {subscription.data ? (
        <Membership
          subscription={subscription.data}
          onChange={(s) => {
            queryClient.setQueryData(['subscription'], s);
            void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
          }}
        />
      ) : subscription.isError ? (
        <Notice tone="error">
          Your membership could not be loaded. <Link to={location.pathname}>Try again</Link>
        </Notice>
      ) : (
        <PageLoading />
      )}
      <TeamSection userUuid={profile.user_uuid} />
      <PasswordForm />
      <EmailForm email={profile.account.email} />
      <NewsletterSection userUuid={profile.user_uuid} />
      <Sessions />
      <section className="account__section" aria-labelledby="shortcuts">
        <h2 id="shortcuts">{SHORTCUT_MESSAGES.pageTitle}</h2>
        <p>
          <Link to={SHORTCUTS_PAGE_PATH}>{SHORTCUT_MESSAGES.manage}</Link>
        </p>
      </section>
    </div>
  );
}

export default AccountPage;
