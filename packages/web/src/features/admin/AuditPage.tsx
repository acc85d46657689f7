/**
 * The audit log (docs/decisions.md "The operators' console, web side"): who did what, when and from where, newest
 * first, filtered by actor, action or target.
 */
import { AUDIT_TARGET_KINDS } from '@lectern/core';
import { useState } from 'react';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { TextField } from '../../components/TextField.tsx';
import { formatDateTime } from './format.ts';
import { AdminListPage } from './AdminListPage.tsx';
import { usePaged } from './usePaged.ts';
import { SelectField } from './SelectField.tsx';

type Kind = (typeof AUDIT_TARGET_KINDS)[number];

/** An entry's detail as a short line: `field: before → after` for edits (also inside `changed`), else `key: value`. */
export function detailLine(detail: Record<string, unknown>): string {
  const show = (v: unknown) => (typeof v === 'string' ? `“${v}”` : JSON.stringify(v));
  const part = ([k, v]: [string, unknown]): string[] => {
    if (Array.isArray(v) && v.length === 2) return [`${k}: ${show(v[0])} → ${show(v[1])}`];
    if (k === 'changed' && v && typeof v === 'object' && !Array.isArray(v)) return Object.entries(v).flatMap(part);
    return [`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`];
  };
  return Object.entries(detail).flatMap(part).join('; ');
}

export function AuditPage() {
  const [actor, setActor] = useState('');
  const [kind, setKind] = useState<'' | Kind>('');
  const [filter, setFilter] = useState<{ actor?: string; target_kind?: Kind }>({});
  const paged = usePaged(adminKeys.audit, filter, (q, signal) => adminApi.audit(q, signal));
  return (
    <AdminListPage
      title="Audit log"
      submitLabel="Filter"
      onSearch={() => setFilter({ actor: actor.trim() || undefined, target_kind: kind || undefined })}
      filters={
        <>
          <TextField label="Operator’s email" name="actor" type="search" value={actor} onChange={(e) => setActor(e.target.value)} />
          <SelectField label="About" value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
            <option value="">Anything</option>
            {AUDIT_TARGET_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </SelectField>
        </>
      }
      paged={paged}
      label="Audit entries"
      pagerLabel="Audit pages"
      stacked
      rowKey={(e) => e.id}
      columns={[
        { header: 'When', className: 'admin-nowrap', cell: (e) => formatDateTime(e.at) },
        { header: 'Who', cell: (e) => e.actor_label },
        {
          header: 'What',
          cell: (e) => (
            <>
              <code>{e.action}</code>
              {Object.keys(e.detail).length ? <div className="admin-muted admin-small">{detailLine(e.detail)}</div> : null}
            </>
          ),
        },
        { header: 'On', cell: (e) => `${e.target_kind}${e.target_id ? ` ${e.target_id}` : ''}` },
        { header: 'From', className: 'admin-nowrap', cell: (e) => e.ip ?? 'command line' },
      ]}
    />
  );
}
