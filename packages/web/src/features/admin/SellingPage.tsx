/**
 * Selling (docs/decisions.md "The console's selling"): the plans and their prices, promotion codes (create with a limit
 * and an end, see how often each was redeemed; a code's own page changes them and lists its redemptions:
 * PromotionCodePage.tsx), and the way to the invoices and teams; every action through the admin API, written to the
 * audit log.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { BASIC_PLAN_PROMOTION_CODE, CONSOLE_MESSAGES as M, PLAN_PERIODS, PLANS, type PlanInfo, type AdminPromotionCode } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextField } from '../../components/TextField.tsx';
import { usePlans } from '../../shared/plans.ts';
import { consolePaths } from './access.ts';
import { formatDate, formatPrice, isoOfLocal } from './format.ts';
import { ActionStatus, useAction } from './useAction.tsx';
import { SelectField } from './SelectField.tsx';

export function SellingPage() {
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">Selling</h1>
      </div>
      <Plans />
      <PromotionCodes />
      <Invoices />
    </div>
  );
}

function Plans() {
  const plans = usePlans();
  return (
    <section className="admin-panel" aria-labelledby="admin-plans">
      <h2 id="admin-plans">Plans and prices</h2>
      {plans.isPending ? <Spinner label="Loading…" /> : plans.isError ? <ErrorState message={M.loadFailed} onRetry={() => void plans.refetch()} /> : null}
      {plans.data?.map((p) => <PlanForm key={p.slug} plan={p} />)}
    </section>
  );
}

function PlanForm({ plan }: { plan: PlanInfo }) {
  const client = useQueryClient();
  const action = useAction();
  const [name, setName] = useState(plan.name);
  const [price, setPrice] = useState((plan.price_cents / 100).toFixed(2));
  const [currency, setCurrency] = useState(plan.currency);
  const [period, setPeriod] = useState(plan.period);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const cents = Math.round(Number(price) * 100);
    const saved = await action.run(() => adminApi.setPlan({ slug: plan.slug, name, price_cents: Number.isFinite(cents) ? cents : -1, currency: currency.trim().toUpperCase(), period }), () => M.saved);
    if (saved) void client.invalidateQueries({ queryKey: queryKeys.plans });
  };
  return (
    <form className="admin-form admin-plan" onSubmit={(e) => void submit(e)} aria-label={`Plan ${plan.slug}`} noValidate>
      <TextField label={`${plan.slug === 'pro' ? 'Pro' : 'Basic'} plan name`} name="name" value={name} onChange={(e) => setName(e.target.value)} errors={action.errors.name} />
      <TextField label="Price" name="price" inputMode="decimal" value={price} onChange={(e) => setPrice(e.target.value)} errors={action.errors.price_cents} />
      <TextField label="Currency" name="currency" value={currency} maxLength={3} onChange={(e) => setCurrency(e.target.value)} errors={action.errors.currency} />
      <SelectField label="Period" value={period} onChange={(e) => setPeriod(e.target.value as PlanInfo['period'])}>
        {PLAN_PERIODS.map((p) => (
          <option key={p} value={p}>
            a {p}
          </option>
        ))}
      </SelectField>
      <div className="admin-form__actions">
        <Button type="submit" variant="secondary" busy={action.busy}>
          Save {plan.slug}
        </Button>
        <span className="admin-muted">Readers see: {formatPrice(Math.round(Number(price) * 100) || 0, currency || 'USD')} a {period}</span>
        <ActionStatus action={action} />
      </div>
    </form>
  );
}

const offOf = (c: Pick<AdminPromotionCode, 'kind' | 'amount' | 'plan'>) =>
  `${c.kind === 'percent' ? `${c.amount}%` : formatPrice(c.amount, 'USD')} off ${c.plan ? `the ${c.plan} plan` : 'any plan'}`;

function PromotionCodes() {
  const client = useQueryClient();
  const codes = useQuery({ queryKey: adminKeys.promotionCodes, queryFn: ({ signal }) => adminApi.promotionCodes(signal) });
  const action = useAction();
  const [code, setCode] = useState('');
  const [kind, setKind] = useState<'percent' | 'fixed'>('percent');
  const [amount, setAmount] = useState('');
  const [plan, setPlan] = useState<'' | (typeof PLANS)[number]>('');
  const [expires, setExpires] = useState('');
  const [limit, setLimit] = useState('');
  const [sale, setSale] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const made = await action.run(
      () =>
        adminApi.addPromotionCode({
          code: code.trim(),
          kind,
          // fixed amounts are typed in the currency, sent in cents
          amount: kind === 'fixed' ? Math.round(Number(amount) * 100) : Number(amount),
          plan: plan || null,
          expires_at: isoOfLocal(expires),
          usage_limit: limit.trim() ? Number(limit) : null,
          is_sale: sale,
        }),
      (c) => M.codeCreated(c.code),
    );
    if (made) {
      setCode('');
      setAmount('');
      setLimit('');
      setExpires('');
      void client.invalidateQueries({ queryKey: adminKeys.promotionCodes });
    }
  };
  return (
    <section className="admin-panel" aria-labelledby="admin-codes">
      <h2 id="admin-codes">Promotion codes</h2>
      <form className="admin-form" onSubmit={(e) => void submit(e)} aria-label="New promotion code" noValidate>
        <TextField label="Code" name="code" value={code} onChange={(e) => setCode(e.target.value)} errors={action.errors.code} autoComplete="off" />
        <SelectField label="Discount" value={kind} onChange={(e) => setKind(e.target.value as 'percent' | 'fixed')}>
          <option value="percent">Percent off</option>
          <option value="fixed">Amount off</option>
        </SelectField>
        <TextField label={kind === 'percent' ? 'Percent' : 'Amount'} name="amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} errors={action.errors.amount} />
        <SelectField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value as typeof plan)}>
          <option value="">Any plan</option>
          {PLANS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </SelectField>
        <TextField label="Ends (optional)" name="expires_at" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} errors={action.errors.expires_at} />
        <TextField label="Redemption limit (optional)" name="usage_limit" inputMode="numeric" value={limit} onChange={(e) => setLimit(e.target.value)} errors={action.errors.usage_limit} />
        <label className="admin-check">
          <input type="checkbox" checked={sale} onChange={(e) => setSale(e.target.checked)} /> Shown as a sale
        </label>
        <div className="admin-form__actions">
          <Button type="submit" busy={action.busy}>
            Create code
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
      {codes.isPending ? <Spinner label="Loading…" /> : codes.isError ? <ErrorState message={M.loadFailed} onRetry={() => void codes.refetch()} /> : null}
      {codes.data ? (
        <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="Promotion codes list">
          <table className="admin-table">
            <thead>
              <tr>
                <th>Code</th>
                <th>Discount</th>
                <th className="num">Redeemed</th>
                <th>Ends</th>
              </tr>
            </thead>
            <tbody>
              {codes.data.map((c) => (
                <tr key={c.code} data-code={c.code}>
                  <td>
                    <Link to={consolePaths.promotionCode(c.code)} aria-label={`Promotion code ${c.code}: limit, end and redemptions`}>
                      <code>{c.code}</code>
                    </Link>{' '}
                    {c.is_sale ? <span className="admin-badge admin-badge--warn">sale</span> : null}
                    {c.code === BASIC_PLAN_PROMOTION_CODE ? <div className="admin-muted admin-small">{M.basicPlanCode}</div> : null}
                  </td>
                  <td>{offOf(c)}</td>
                  <td className="num">
                    {c.used_count}
                    {c.usage_limit === null ? '' : ` of ${c.usage_limit}`}
                  </td>
                  <td>{c.expires_at ? formatDate(c.expires_at) : 'no end'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** Invoices and teams have pages of their own (InvoicesPage.tsx, TeamsPage.tsx). */
function Invoices() {
  return (
    <section className="admin-panel" aria-labelledby="admin-invoices">
      <h2 id="admin-invoices">Invoices and teams</h2>
      <p className="admin-hint">
        An invoice paid outside the library (a bank transfer) is marked paid from the <Link to={consolePaths.section('invoices')}>invoices</Link>, unpaid ones
        first. A team's seats, owner and members are on its page under <Link to={consolePaths.section('teams')}>teams</Link>.
      </p>
    </section>
  );
}
