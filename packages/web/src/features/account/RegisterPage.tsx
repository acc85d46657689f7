/**
 * Registration (library-playlists-account.md §1, §4, §5): email, password and the basic or pro plan, checked by the
 * server while the person types; the form is disabled with 'Just a second...' while it is sent; the server's
 * per-field errors appear under their fields. Success opens the onboarding topic form, signed in.
 */
import { useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_ENTRY_MESSAGES, BASIC_PLAN_PROMOTION_CODE, EMAIL_SHAPE, type Plan } from '@lectern/core';
import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { planSummary, usePlanName } from '../../shared/plans.ts';
import { useSession } from '../../shared/useSession.ts';
import { NewPasswordField } from '../../shared/NewPasswordField.tsx';
import { useLiveCheck, type LiveCheck } from '../../shared/useLiveCheck.ts';
import './LoginPage.css';
import './RegisterPage.css';

/** The email is asked about shortly after the last key: every keyup would spend the per-address limit in one address. */
const EMAIL_CHECK_DELAY_MS = 400;

/** The panels' points; each plan's name is the operator's, and its summary shared with the subscribe page (shared/plans.ts). */
const PLAN_PANELS: { plan: Plan; points: string[] }[] = [
  {
    plan: 'basic',
    points: ['Every book, document, video and audiobook', 'Queue, playlists, highlights and notes'],
  },
  {
    plan: 'pro',
    points: ['Live training sessions with experts', 'Course recordings and case studies'],
  },
];

const errorsOf = (check: LiveCheck): string[] => (check.state === 'error' ? [check.message] : []);

export function RegisterPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { profile } = useSession();
  const [plan, setPlan] = useState<Plan>('basic');
  const planName = usePlanName();
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [detail, setDetail] = useState<string | null>(null);
  const [posting, setPosting] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const emailValue = useRef('');

  const email = useLiveCheck(async (value, signal) => {
    const answer = await api.checkEmail(value, signal);
    return { ok: answer.success, message: answer.message };
  }, EMAIL_CHECK_DELAY_MS);
  /** the password field's live check (NewPasswordField): the form is not sent while it shows an error (§5) */
  const [passwordCheck, setPasswordCheck] = useState<LiveCheck>({ state: 'idle' });

  const onEmail = (value: string) => {
    emailValue.current = value.trim();
    setServerErrors(({ email: _gone, ...rest }) => rest);
    if (!value.trim()) email.reset({ state: 'error', message: ACCOUNT_ENTRY_MESSAGES.required });
    else if (!EMAIL_SHAPE.test(value.trim())) email.reset({ state: 'error', message: ACCOUNT_ENTRY_MESSAGES.emailShape });
    else email.check(value.trim());
  };

  const emailErrors = serverErrors.email ?? errorsOf(email.result);
  const passwordErrors = serverErrors.password ?? errorsOf(passwordCheck);

  const focusField = (name: string) =>
    requestAnimationFrame(() => (formRef.current?.elements.namedItem(name) as HTMLInputElement | null)?.focus());

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (posting) return;
    const data = new FormData(event.currentTarget);
    const form = { email: String(data.get('email') ?? '').trim(), password: String(data.get('password') ?? ''), plan };
    // §5: both fields are required, and the form is not sent while either shows an error.
    const missing: FieldErrors = {};
    if (!form.email) missing.email = [ACCOUNT_ENTRY_MESSAGES.required];
    if (!form.password) missing.password = [ACCOUNT_ENTRY_MESSAGES.required];
    if (Object.keys(missing).length) {
      setServerErrors(missing);
      focusField(missing.email ? 'email' : 'password');
      return;
    }
    if (emailErrors.length || passwordErrors.length) {
      focusField(emailErrors.length ? 'email' : 'password');
      return;
    }
    track('registration', 'submit', plan); // §5: only with both fields filled and neither in error
    setPosting(true);
    setDetail(null);
    try {
      const answer = await api.register(form);
      track('account', 'trial-created', plan);
      api.clearCollectionsCache();
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'profile' });
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      navigate(answer.onboardingLocation ?? appPaths.library, { replace: true, state: { trialEndsAt: answer.trial_ends_at } });
    } catch (error) {
      const errors = isApiError(error) ? error.errors : {};
      setServerErrors(errors);
      const fieldless = Object.entries(errors).filter(([k]) => k !== 'email' && k !== 'password');
      setDetail(Object.keys(errors).length && !fieldless.length ? null : error instanceof Error ? error.message : String(error));
      if (errors.email) focusField('email');
      else if (errors.password) focusField('password');
      setPosting(false);
    }
  };

  return (
    <div className="login register">
      <title>Start your free trial · Lectern</title>
      <div className="login__panel register__panel">
        <h1 className="login__heading">Start your free trial</h1>
        <p className="login__lede">Read everything in the library free during your trial. No card needed.</p>

        {profile ? (
          <Notice tone="info" role="status" className="login__notice" dismissible={false}>
            You are signed in as {profile.username}. <Link to={appPaths.library}>Go to the library</Link>
          </Notice>
        ) : null}
        {detail ? (
          <Notice tone="error" role="alert" className="login__notice">
            {detail}
          </Notice>
        ) : null}

        <form ref={formRef} className="login__form" noValidate onSubmit={(e) => void onSubmit(e)} aria-busy={posting || undefined}>
          <fieldset className="register__fieldset" disabled={posting}>
            <legend className="visually-hidden">Your account</legend>
            <TextField
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              inputMode="email"
              required
              spellCheck={false}
              errors={emailErrors}
              onKeyUp={(e) => onEmail(e.currentTarget.value)}
              onChange={(e) => onEmail(e.currentTarget.value)}
            />
            <NewPasswordField
              required
              email={() => emailValue.current}
              errors={serverErrors.password}
              onValue={() => setServerErrors(({ password: _gone, ...rest }) => rest)}
              onResult={setPasswordCheck}
            />

            <fieldset className="register__plans">
              <legend className="register__plans-legend">Your plan after the trial</legend>
              <div className="register__plan-grid">
                {PLAN_PANELS.map((panel) => (
                  <label key={panel.plan} className={`register__plan${plan === panel.plan ? ' register__plan--chosen' : ''}`}>
                    <input
                      type="radio"
                      name="plan"
                      value={panel.plan}
                      checked={plan === panel.plan}
                      onChange={() => (setPlan(panel.plan), track('plan', 'choose', panel.plan))}
                    />
                    <span className="register__plan-name">{planName(panel.plan)}</span>
                    <span className="register__plan-summary">{planSummary(panel.plan, planName)}</span>
                    <ul className="register__plan-points">
                      {panel.points.map((point) => (
                        <li key={point}>{point}</li>
                      ))}
                    </ul>
                  </label>
                ))}
              </div>
              {/* §5: the basic plan carries promotion code price24; pro clears it. */}
              <input type="hidden" name="promotion_code" value={plan === 'basic' ? BASIC_PLAN_PROMOTION_CODE : ''} />
              {serverErrors.plan ? <p className="field__error">{serverErrors.plan.join(' ')}</p> : null}
            </fieldset>

            <Button type="submit" size="lg" className="login__submit" busy={posting}>
              {posting ? ACCOUNT_ENTRY_MESSAGES.justASecond : 'Start my free trial'}
            </Button>
          </fieldset>
        </form>
        <p className="login__footer">
          Already a reader? <Link to={appPaths.login()}>Sign in</Link>
        </p>
      </div>
    </div>
  );
}

export default RegisterPage;
