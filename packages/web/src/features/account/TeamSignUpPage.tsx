/**
 * The team sign-up page (library-playlists-account.md §2 "team sign-up page with add-another-member"; docs/decisions.md
 * "Teams"): a signed-in reader names the team, picks the plan, the number of seats (their own included) and the members
 * to invite, one email field each with an "Add another member" button; buying sends the invitations. Seats grow with
 * the member fields so the two never disagree before the server is asked.
 */
import { useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, type Plan, TEAM_INVITE_BATCH_MAX, TEAM_NAME_MAX, TEAM_SEATS_MAX } from '@lectern/core';
import { useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { usePlans } from '../../shared/plans.ts';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import { formatPrice } from './money.ts';
import './LoginPage.css';
import './RegisterPage.css';
import './AccountPage.css';
import './TeamPages.css';

let nextKey = 0;
const row = () => ({ key: ++nextKey, email: '' });
/** Reasons a field of the form shows under itself (the rest, `plan` or none, go in the banner). */
const shownByField = (key: string) => key === 'name' || key === 'seats' || key === 'emails' || /^emails\.\d+$/.test(key);

export function TeamSignUpPage() {
  const { profile, isLoading } = useSession();
  const signIn = useSignInPath(!isLoading && !profile);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const plans = usePlans();
  const [name, setName] = useState('');
  const [plan, setPlan] = useState<Plan>('basic');
  const [seats, setSeats] = useState('2');
  const [members, setMembers] = useState([row()]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [posting, setPosting] = useState(false);
  const fields = useRef(new Map<number, HTMLInputElement>());
  const form = useRef<HTMLFormElement>(null);
  /** The keyboard focus on the first field in error, once it shows (so a screen reader reads its reason). */
  const focusFirstInvalid = () => requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());

  if (isLoading) return <PageLoading />;
  if (!profile) return <Navigate to={signIn} replace />;

  const seatCount = Number(seats);
  const emails = members.map((m) => m.email.trim()).filter(Boolean);
  const chosen = plans.data?.find((p) => p.slug === plan);
  const total = chosen && Number.isInteger(seatCount) && seatCount > 0 ? formatPrice(chosen.price_cents * seatCount, chosen.currency, chosen.period) : null;

  const addMember = () => {
    const added = row();
    setMembers((list) => [...list, added]);
    // one seat per member field, the owner's own included
    setSeats((s) => String(Math.max(Number(s) || 1, members.length + 2)));
    // the new field takes the focus, so a keyboard user types on
    requestAnimationFrame(() => fields.current.get(added.key)?.focus());
  };
  const removeMember = (key: number) => {
    setMembers((list) => (list.length > 1 ? list.filter((m) => m.key !== key) : [row()]));
    // the member fields' reasons are numbered by the list sent: they no longer match it
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'emails' && !k.startsWith('emails.'))));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const missing: FieldErrors = {};
    if (!name.trim()) missing.name = [ACCOUNT_ENTRY_MESSAGES.required];
    if (!Number.isInteger(seatCount) || seatCount < 1) missing.seats = ['Enter a whole number of seats, 1 or more.'];
    if (Object.keys(missing).length) {
      setErrors(missing);
      setError(null);
      focusFirstInvalid();
      return;
    }
    setPosting(true);
    setErrors({});
    setError(null);
    try {
      const team = await api.createTeam({ name: name.trim(), plan, seats: seatCount, emails });
      queryClient.setQueryData(queryKeys.team, team);
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      await queryClient.invalidateQueries({ queryKey: ['subscription'] });
      navigate(appPaths.account, {
        state: { notice: `Your team ${team.name} is ready${emails.length ? `: ${emails.length} invitation${emails.length === 1 ? ' is' : 's are'} on the way` : ''}.` },
      });
    } catch (e) {
      const errs = isApiError(e) ? e.errors : {};
      setErrors(errs);
      // as the registration form: the reasons under their fields, a banner only for what no field shows
      const keys = Object.keys(errs);
      setError(keys.length && keys.every(shownByField) ? null : e instanceof Error ? e.message : String(e));
      setPosting(false);
      focusFirstInvalid();
    }
  };

  /** The error for the i-th address among the non-empty ones the server was sent. */
  const emailError = (index: number) => {
    const sentIndex = members.slice(0, index + 1).filter((m) => m.email.trim()).length - 1;
    return members[index]!.email.trim() ? errors[`emails.${sentIndex}`] : undefined;
  };

  return (
    <div className="login register">
      <title>Start a team · Lectern</title>
      <div className="login__panel register__panel">
        <h1 className="login__heading">Start a team</h1>
        <p className="login__lede">Buy a seat for each reader, yours included. Members read the whole library while the team subscribes.</p>
        {error ? (
          <Notice tone="error" className="login__notice">
            {error}
          </Notice>
        ) : null}
        <form ref={form} className="login__form" onSubmit={(e) => void onSubmit(e)} noValidate>
          <fieldset className="register__fieldset" disabled={posting}>
            <TextField label="Team name" name="name" autoComplete="organization" maxLength={TEAM_NAME_MAX} value={name} onChange={(e) => setName(e.currentTarget.value)} errors={errors.name} />
            <fieldset className="register__plans">
              <legend className="register__plans-legend">Plan</legend>
              <div className="register__plan-grid">
                {(plans.data ?? []).map((p) => (
                  <label key={p.slug} className={`register__plan${plan === p.slug ? ' register__plan--chosen' : ''}`}>
                    <input type="radio" name="plan" value={p.slug} checked={plan === p.slug} onChange={() => setPlan(p.slug)} />
                    <span className="register__plan-name">{p.name}</span>
                    <span className="account__price">{formatPrice(p.price_cents, p.currency, p.period)} a seat</span>
                  </label>
                ))}
              </div>
            </fieldset>
            <TextField
              label="Seats"
              name="seats"
              type="number"
              inputMode="numeric"
              min={Math.max(1, emails.length + 1)}
              max={TEAM_SEATS_MAX}
              value={seats}
              onChange={(e) => setSeats(e.currentTarget.value)}
              hint="Your own seat included; add seats later from your account page."
              errors={errors.seats}
            />
            <fieldset className="team__members-fieldset">
              <legend className="register__plans-legend">Members to invite</legend>
              <p className="account__muted team__note">Each gets an email with a link to join, valid for 7 days. You can invite people later too.</p>
              {members.map((m, index) => (
                <div key={m.key} className="team__member-field">
                  <TextField
                    label={`Member ${index + 1} email`}
                    name={`email-${index}`}
                    type="email"
                    autoComplete="off"
                    value={m.email}
                    ref={(el) => {
                      if (el) fields.current.set(m.key, el);
                      else fields.current.delete(m.key);
                    }}
                    onChange={(e) => {
                      const value = e.currentTarget.value;
                      setMembers((list) => list.map((x) => (x.key === m.key ? { ...x, email: value } : x)));
                    }}
                    errors={emailError(index)}
                  />
                  <Button variant="ghost" size="sm" aria-label={`Remove member ${index + 1}`} onClick={() => removeMember(m.key)}>
                    Remove
                  </Button>
                </div>
              ))}
              {errors.emails ? <p className="field__error" role="alert">{errors.emails.join(' ')}</p> : null}
              <div>
                <Button variant="secondary" onClick={addMember} disabled={members.length >= TEAM_INVITE_BATCH_MAX}>
                  Add another member
                </Button>
              </div>
            </fieldset>
            {total ? (
              <p className="team__total" aria-live="polite">
                {seatCount} seat{seatCount === 1 ? '' : 's'}: <strong>{total}</strong>, by invoice.
              </p>
            ) : null}
            <Button type="submit" size="lg" className="login__submit" busy={posting}>
              {posting ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Buy seats and send invitations'}
            </Button>
          </fieldset>
        </form>
        <p className="login__footer">
          Payment is by invoice: your team reads while it is open. <Link to={appPaths.account}>Your account</Link>
        </p>
      </div>
    </div>
  );
}

export default TeamSignUpPage;
