/**
 * Invoices (docs/decisions.md "The console's selling"): every invoice, newest first, the unpaid ones by default,
 * searched by the account's email; one paid outside the library (a bank transfer) is marked paid from its row. Written
 * to the audit log.
 */
import { useQueryClient } from '@tanstack/react-query';
import { ADMIN_INVOICE_STATES, CONSOLE_MESSAGES as M, type AdminInvoiceRow, type AdminInvoiceState } from '@lectern/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { Button } from '../../components/Button.tsx';
import { TextField } from '../../components/TextField.tsx';
import { consolePaths } from './access.ts';
import { AdminListPage } from './AdminListPage.tsx';
import { formatDate, formatPrice } from './format.ts';
import { SelectField } from './SelectField.tsx';
import { ActionStatus, useAction } from './useAction.tsx';
import { usePaged } from './usePaged.ts';

const STATE_LABELS: Record<AdminInvoiceState, string> = { unpaid: 'Unpaid', paid: 'Paid', all: 'All' };
const STATUS_LABELS: Record<AdminInvoiceRow['status'], string> = { open: 'unpaid', paid: 'paid', void: 'void' };

export function InvoicesPage() {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [state, setState] = useState<AdminInvoiceState>('unpaid');
  const paged = usePaged(adminKeys.invoices, { state, q: q || undefined }, (query, signal) => adminApi.invoices(query, signal));
  return (
    <AdminListPage
      title="Invoices"
      onSearch={() => setQ(typed.trim())}
      filters={
        <>
          <TextField label="Search by account email" name="q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} />
          <SelectField label="Show" value={state} onChange={(e) => setState(e.target.value as AdminInvoiceState)}>
            {ADMIN_INVOICE_STATES.map((s) => (
              <option key={s} value={s}>
                {STATE_LABELS[s]}
              </option>
            ))}
          </SelectField>
        </>
      }
      paged={paged}
      label="Invoices list"
      pagerLabel="Invoices pages"
      rowKey={(i) => String(i.id)}
      columns={[
        { header: 'Number', cell: (i) => i.id, className: 'num' },
        { header: 'Date', cell: (i) => formatDate(i.created_at), className: 'admin-nowrap' },
        { header: 'Account', cell: (i) => <Link to={consolePaths.user(i.account.user_id)}>{i.account.email}</Link> },
        {
          header: 'For',
          cell: (i) =>
            i.team ? (
              <>
                <Link to={consolePaths.team(i.team.team_id)}>{i.team.name}</Link>, {i.seats} {i.seats === 1 ? 'seat' : 'seats'}
              </>
            ) : (
              `${i.plan}${i.promotion_code ? ` with ${i.promotion_code}` : ''}`
            ),
        },
        { header: 'Amount', cell: (i) => formatPrice(i.amount_cents, i.currency), className: 'num' },
        { header: 'Status', cell: (i) => <InvoiceStatus invoice={i} /> },
      ]}
    />
  );
}

/** The status, and for an unpaid invoice the button that marks it paid. */
function InvoiceStatus({ invoice }: { invoice: AdminInvoiceRow }) {
  const client = useQueryClient();
  const action = useAction();
  if (invoice.status !== 'open') return <span className="admin-badge">{STATUS_LABELS[invoice.status]}</span>;
  const pay = async () => {
    // the list keeps showing the row (with its confirmation) until the next load
    if (await action.run(() => adminApi.markInvoicePaid(String(invoice.id)), () => M.invoicePaid(String(invoice.id)))) {
      void client.invalidateQueries({ queryKey: ['admin', 'invoices'] });
    }
  };
  return (
    <div className="admin-row-action">
      <span className="admin-badge admin-badge--warn">{STATUS_LABELS.open}</span>
      <Button variant="secondary" size="sm" busy={action.busy} onClick={() => void pay()} aria-label={`Mark invoice ${invoice.id} paid`}>
        Mark paid
      </Button>
      <ActionStatus action={action} />
    </div>
  );
}
