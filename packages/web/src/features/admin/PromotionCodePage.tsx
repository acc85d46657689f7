/**
 * One promotion code (docs/decisions.md "The console's selling"): its redemption limit and end changed (a limit never
 * below the redemptions made; ending it now), and who redeemed it, newest first. Each change is written to the audit
 * log.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M, type AdminPromotionCode } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextField } from '../../components/TextField.tsx';
import { consolePaths } from './access.ts';
import { PagedTable } from './AdminListPage.tsx';
import { formatDateTime, formatPrice, isoOfLocal } from './format.ts';
import { type Action, ActionStatus, useAction } from './useAction.tsx';
import { usePaged } from './usePaged.ts';

/** An ISO instant as a datetime-local input's value (local time). */
const localOf = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function PromotionCodePage() {
  const code = useParams().code ?? '';
  const codes = useQuery({ queryKey: adminKeys.promotionCodes, queryFn: ({ signal }) => adminApi.promotionCodes(signal) });
  // here, not in the form: the form starts again from what was saved, its confirmation stays
  const action = useAction();
  if (codes.isPending) return <Spinner label="Loading…" />;
  if (codes.isError) return <ErrorState message={M.loadFailed} onRetry={() => void codes.refetch()} />;
  const found = codes.data.find((c) => c.code === code);
  if (!found) return <p className="admin__note">{M.noResults}</p>;
  return <PromotionCode key={`${found.usage_limit}|${found.expires_at}`} code={found} action={action} />;
}

function PromotionCode({ code, action }: { code: AdminPromotionCode; action: Action }) {
  const client = useQueryClient();
  const [limit, setLimit] = useState(code.usage_limit === null ? '' : String(code.usage_limit));
  const [expires, setExpires] = useState(localOf(code.expires_at));
  const redemptions = usePaged((q) => adminKeys.redemptions(code.code, q), {}, (q, signal) => adminApi.redemptions(code.code, q, signal));
  const ended = code.expires_at !== null && Date.parse(code.expires_at) <= Date.now();
  const save = async (patch: Parameters<typeof adminApi.editPromotionCode>[1], message: string) => {
    if (await action.run(() => adminApi.editPromotionCode(code.code, patch), () => message)) void client.invalidateQueries({ queryKey: adminKeys.promotionCodes });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const n = Number(limit.trim());
    void save({ usage_limit: limit.trim() ? (Number.isInteger(n) ? n : -1) : null, expires_at: isoOfLocal(expires) }, M.codeSaved(code.code));
  };
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">
          Promotion code <code>{code.code}</code>
        </h1>
        <p>
          <Link to={consolePaths.section('selling')}>Selling</Link>
        </p>
      </div>
      <dl className="admin-facts">
        <div>
          <dt>Discount</dt>
          <dd>
            {code.kind === 'percent' ? `${code.amount}%` : formatPrice(code.amount, 'USD')} off {code.plan ? `the ${code.plan} plan` : 'any plan'}
          </dd>
        </div>
        <div>
          <dt>Redeemed</dt>
          <dd>
            {code.used_count}
            {code.usage_limit === null ? '' : ` of ${code.usage_limit}`}
          </dd>
        </div>
        <div>
          <dt>Ends</dt>
          <dd>{code.expires_at ? `${formatDateTime(code.expires_at)}${ended ? ' (ended)' : ''}` : 'no end'}</dd>
        </div>
      </dl>
      <section className="admin-panel" aria-labelledby="admin-code-life">
        <h2 id="admin-code-life">Limit and end</h2>
        <form className="admin-form" onSubmit={submit} aria-label="Change the limit and end" noValidate>
          <TextField label="Redemption limit (empty: none)" name="usage_limit" inputMode="numeric" value={limit} onChange={(e) => setLimit(e.target.value)} errors={action.errors.usage_limit} />
          <TextField label="Ends (empty: never)" name="expires_at" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} errors={action.errors.expires_at} />
          <div className="admin-form__actions">
            <Button type="submit" busy={action.busy}>
              Save
            </Button>
            <Button type="button" variant="danger" disabled={ended} busy={action.busy} onClick={() => void save({ expires_at: new Date().toISOString() }, M.codeEnded(code.code))}>
              End now
            </Button>
            <ActionStatus action={action} />
          </div>
        </form>
      </section>
      <section className="admin-panel" aria-labelledby="admin-code-redemptions">
        <h2 id="admin-code-redemptions">Redemptions</h2>
        <PagedTable
          paged={redemptions}
          label="Redemptions list"
          pagerLabel="Redemptions pages"
          empty="Not redeemed yet."
          rowKey={(r) => String(r.invoice_id)}
          columns={[
            { header: 'When', cell: (r) => formatDateTime(r.at), className: 'admin-nowrap' },
            { header: 'Account', cell: (r) => <Link to={consolePaths.user(r.account.user_id)}>{r.account.email}</Link> },
            { header: 'Plan', cell: (r) => r.plan },
            { header: 'Paid', cell: (r) => formatPrice(r.amount_cents, r.currency), className: 'num' },
            { header: 'Invoice', cell: (r) => r.invoice_id, className: 'num' },
          ]}
        />
      </section>
    </div>
  );
}
