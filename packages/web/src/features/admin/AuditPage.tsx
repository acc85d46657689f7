/** The audit log (issue 23): who did what, when and from where, newest first, filtered by actor, action or target. */
import { AUDIT_TARGET_KINDS, CONSOLE_MESSAGES as M } from '@lectern/core';
import { useState } from 'react';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextField } from '../../components/TextField.tsx';
import { formatDateTime } from './format.ts';
import { Pager } from './Pager.tsx';
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
  const { query, page, next, previous } = usePaged(adminKeys.audit, filter, (q, signal) => adminApi.audit(q, signal));
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">Audit log</h1>
      </div>
      <form
        className="admin-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ actor: actor.trim() || undefined, target_kind: kind || undefined });
        }}
      >
        <TextField label="Operator’s email" name="actor" type="search" value={actor} onChange={(e) => setActor(e.target.value)} />
        <SelectField label="About" value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
          <option value="">Anything</option>
          {AUDIT_TARGET_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="secondary">
          Filter
        </Button>
      </form>
      {query.isPending ? <Spinner label="Loading…" /> : query.isError ? <ErrorState message={isApiError(query.error) ? query.error.detail : M.loadFailed} onRetry={() => void query.refetch()} /> : null}
      {query.data ? (
        query.data.results.length ? (
          <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="Audit entries">
            <table className="admin-table">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>What</th>
                  <th>On</th>
                  <th>From</th>
                </tr>
              </thead>
              <tbody>
                {query.data.results.map((e) => (
                  <tr key={e.id}>
                    <td className="admin-nowrap">{formatDateTime(e.at)}</td>
                    <td>{e.actor_label}</td>
                    <td>
                      <code>{e.action}</code>
                      {Object.keys(e.detail).length ? <div className="admin-muted admin-small">{detailLine(e.detail)}</div> : null}
                    </td>
                    <td>
                      {e.target_kind}
                      {e.target_id ? ` ${e.target_id}` : ''}
                    </td>
                    <td className="admin-nowrap">{e.ip ?? 'command line'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="admin-muted">{M.noResults}</p>
        )
      ) : null}
      <Pager page={page} next={next} previous={previous} label="Audit pages" />
    </div>
  );
}
