/**
 * Subscribe or upgrade (library-playlists-account.md §2 "subscribe or upgrade form", "plan picker with basic and pro
 * panels"; §5 promotion codes): the two plans with the operator's prices, a promotion code applied against the chosen
 * plan (lower-cased; every §5 message), then the subscription. Basic carries price24; choosing pro clears it.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ACCOUNT_ENTRY_MESSAGES,
  BASIC_PLAN_PROMOTION_CODE,
  type Plan,
  type PlanInfo,
  type PromotionResponse,
  SUBSCRIPTION_MESSAGES,
  isEuCountry,
} from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, ApiError } from '../../api/client.ts';
import { CountryField, initialCountry } from './CountryField.tsx';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { PageLoading } from '../../components/PageLoading.tsx';
import { TextField } from '../../components/TextField.tsx';
import { track } from '../../shared/analytics.ts';
import { appPaths } from '../../shared/links.ts';
import { planSummary, usePlanName, usePlans } from '../../shared/plans.ts';
import { useSession, useSignInPath } from '../../shared/useSession.ts';
import { formatPrice } from './money.ts';
import './LoginPage.css';
import './RegisterPage.css';
import './AccountPage.css';

export function SubscribePage() {
  const { profile, isLoading } = useSession();
  const signIn = useSignInPath(!isLoading && !profile);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const asked = params.get('plan');
  // The plan picked here, else the one the address names, else the one chosen at sign-up (the account keeps it).
  const [chosen, setChosen] = useState<Plan | null>(asked === 'pro' || asked === 'basic' ? asked : null);
  const [typedCode, setCode] = useState<string | null>(null);
  const [applied, setApplied] = useState<PromotionResponse | null>(null);
  const [codeMessage, setCodeMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [posting, setPosting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<{ country?: string[]; eu_agreement?: string[] }>({});
  const [country, setCountry] = useState(initialCountry);
  const [agreed, setAgreed] = useState(false);
  const plans = usePlans();
  const planName = usePlanName();
  const subscription = useQuery({ queryKey: ['subscription'], queryFn: ({ signal }) => api.getSubscription(signal), enabled: !!profile });

  if (isLoading) return <PageLoading />;
  if (!profile) return <Navigate to={signIn} replace />;
  // Until the account answers, the plan it chose is unknown: showing Basic meanwhile would mislead.
  if (!chosen && subscription.isPending) return <PageLoading />;
  const current = subscription.data;
  // A subscriber comes here to change plans: the plan they have is marked, and the other one is offered first. (A
  // subscriber without a plan, from before accounts always kept one, is priced as Basic: so it is shown.)
  const planNow: Plan | null = current?.status === 'subscriber' ? (current.plan === 'pro' ? 'pro' : 'basic') : null;
  const plan: Plan = chosen ?? (planNow ? (planNow === 'pro' ? 'basic' : 'pro') : current?.plan === 'pro' ? 'pro' : 'basic');
  // §4: the basic plan carries price24 until the reader types another code; pro starts with none.
  const code = typedCode ?? (plan === 'basic' ? BASIC_PLAN_PROMOTION_CODE : '');
  // Once sent, the answer makes this account a subscriber on the plan just chosen before the page moves on: nothing
  // about "your plan now" is said meanwhile, and the choice stays (onSubmit fixes it).
  const ownPlanChosen = !posting && plan === planNow;

  const choose = (next: Plan) => {
    setChosen(next);
    track('plan', 'choose', next);
    // §4: the basic plan choice sets promotion code price24; pro clears it.
    setCode(next === 'basic' ? BASIC_PLAN_PROMOTION_CODE : '');
    setApplied(null);
    setCodeMessage(null);
  };

  const applyCode = async () => {
    const wanted = code.trim().toLowerCase();
    if (!wanted) return setCodeMessage({ ok: false, text: SUBSCRIPTION_MESSAGES.codeNotValid });
    if (applied?.promotion_code === wanted) return setCodeMessage({ ok: false, text: SUBSCRIPTION_MESSAGES.codeAlreadyApplied });
    try {
      const answer = await api.redeemPromotion(wanted, plan);
      setApplied(answer.success ? answer : null);
      track('promotion', answer.success ? 'applied' : 'refused', wanted);
      setCodeMessage({ ok: answer.success, text: answer.message });
    } catch (e) {
      setCodeMessage({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    // (their own plan: nothing to send; the account not known yet: not what to send)
    if (plan === planNow || subscription.isPending) return;
    setChosen(plan);
    setPosting(true);
    setError(null);
    setFieldErrors({});
    // §4: the EU agreement is asked of subscribers in the EU only
    const terms = { country, ...(isEuCountry(country) ? { eu_agreement: agreed } : {}) };
    const status = subscription.data?.status;
    const reactivating = status === 'cancelled' || (status === 'expired' && !!subscription.data?.subscription_ends_at);
    const action = status === 'subscriber' ? 'upgrade' : reactivating ? 'reactivate' : 'subscribe';
    try {
      const result = reactivating ? await api.reactivateSubscription(plan, terms) : await api.subscribe(plan, applied?.promotion_code ?? (code.trim() || undefined), terms);
      // Counted once the server took it: a refused subscribe is not a subscribe in the report.
      track('subscription', action, plan);
      if (subscription.data?.status === 'expired' && !subscription.data.subscription_ends_at) track('account', 'trial-expired-then-upgrade', plan);
      queryClient.setQueryData(['subscription'], result);
      await queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      navigate(appPaths.account, { state: { notice: SUBSCRIPTION_MESSAGES.subscribed(planName(plan)) } });
    } catch (e) {
      track('subscription', `${action}-refused`, plan);
      setError(e instanceof Error ? e.message : String(e));
      if (e instanceof ApiError) setFieldErrors({ country: e.errors.country, eu_agreement: e.errors.eu_agreement });
      setPosting(false);
    }
  };

  const price = (p: PlanInfo) => {
    if (applied && p.slug === plan) {
      const [currency, cost] = Object.entries(applied.currency_costs)[0] ?? [p.currency, String(p.price_cents / 100)];
      return formatPrice(Math.round(Number(cost) * 100), currency, p.period);
    }
    return formatPrice(p.price_cents, p.currency, p.period);
  };

  const returning = current?.status === 'cancelled' || current?.status === 'expired';
  const heading = planNow ? 'Change your plan' : returning ? 'Come back to Lectern' : 'Subscribe';
  const lede = planNow
    ? 'Your playlists, notes and progress stay as they are.'
    : returning
      ? 'Everything you have saved — playlists, notes, progress — is waiting.'
      : 'Keep reading the whole library: your playlists, notes and progress come with you.';

  return (
    <div className="login register">
      <title>{`${heading} · Lectern`}</title>
      <div className="login__panel register__panel">
        <h1 className="login__heading">{heading}</h1>
        <p className="login__lede">{lede}</p>
        {error ? (
          <Notice tone="error" className="login__notice">
            {error}
          </Notice>
        ) : null}
        <form className="login__form" onSubmit={(e) => void onSubmit(e)}>
          <fieldset className="register__fieldset" disabled={posting}>
            <fieldset className="register__plans">
              <legend className="register__plans-legend">Plan</legend>
              <div className="register__plan-grid">
                {(plans.data ?? []).map((p) => (
                  <label key={p.slug} className={`register__plan${plan === p.slug ? ' register__plan--chosen' : ''}`}>
                    <input type="radio" name="plan" value={p.slug} checked={plan === p.slug} onChange={() => choose(p.slug)} />
                    <span className="register__plan-name">{p.name}</span>
                    {p.slug === planNow && !posting ? <span className="register__plan-now">Your plan now</span> : null}
                    <span className="account__price">{price(p)}</span>
                    <span className="register__plan-summary">
                      {planSummary(p.slug, planName)}
                    </span>
                  </label>
                ))}
              </div>
            </fieldset>
            <CountryField country={country} onCountry={setCountry} agreed={agreed} onAgreed={setAgreed} errors={fieldErrors} />
            <div className="account__code">
              <TextField
                label="Promotion code"
                name="promotion_code"
                autoComplete="off"
                value={code}
                onChange={(e) => {
                  setCode(e.currentTarget.value);
                  setCodeMessage(null);
                }}
                errors={codeMessage && !codeMessage.ok ? [codeMessage.text] : undefined}
              />
              <Button type="button" variant="secondary" onClick={() => void applyCode()}>
                Apply
              </Button>
            </div>
            {codeMessage?.ok ? (
              <p className="register__good" role="status">
                {codeMessage.text}
              </p>
            ) : null}
            {/* (the plan they have: nothing to change, and no thanks for a subscription that did not happen) */}
            <Button
              type="submit"
              size="lg"
              className="login__submit"
              busy={posting}
              disabled={ownPlanChosen || subscription.isPending}
              aria-describedby={ownPlanChosen ? 'subscribe-plan-now' : undefined}
            >
              {posting ? ACCOUNT_ENTRY_MESSAGES.justASecond : planNow ? 'Change my plan' : 'Subscribe'}
            </Button>
            {ownPlanChosen ? (
              <p className="register__hint" id="subscribe-plan-now" role="status">
                You are on {planName(plan)} now: choose the other plan to change.
              </p>
            ) : null}
          </fieldset>
        </form>
        <p className="login__footer">
          Payment is by invoice: you keep reading while it is open. <Link to={appPaths.account}>Your account</Link>
        </p>
      </div>
    </div>
  );
}

export default SubscribePage;
