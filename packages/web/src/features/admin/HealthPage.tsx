/**
 * Health (docs/decisions.md "The operators' console, web side"): version, database engine and size, content-store size,
 * the import queue, the last server errors and the scheduled jobs with their last run (GET /api/v1/admin/health/),
 * asked again every 30 seconds.
 */
import { useQuery } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M } from '@lectern/core';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { formatBytes, formatDateTime } from './format.ts';

const every = (s: number) => (s % 86_400 === 0 ? `every ${s / 86_400} d` : s % 3600 === 0 ? `every ${s / 3600} h` : s % 60 === 0 ? `every ${s / 60} min` : `every ${s} s`);

export function HealthPage() {
  const q = useQuery({ queryKey: adminKeys.health, queryFn: ({ signal }) => adminApi.health(signal), refetchInterval: 30_000 });
  const h = q.data;
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">Health</h1>
      </div>
      {q.isPending ? <Spinner label="Loading…" /> : q.isError ? <ErrorState message={isApiError(q.error) ? q.error.detail : M.loadFailed} onRetry={() => void q.refetch()} /> : null}
      {h ? (
        <>
          <dl className="admin-facts">
            <div>
              <dt>Version</dt>
              <dd>{h.version}</dd>
            </div>
            <div>
              <dt>Database</dt>
              <dd>{h.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}</dd>
            </div>
            <div>
              <dt>Database size</dt>
              <dd>{formatBytes(h.db_bytes)}</dd>
            </div>
            <div>
              <dt>Content store</dt>
              <dd>{formatBytes(h.content_store_bytes)}</dd>
            </div>
            <div>
              <dt>Titles</dt>
              <dd>{h.titles.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Import queue</dt>
              <dd>
                {h.import_queue.running} running, {h.import_queue.waiting} waiting
              </dd>
            </div>
          </dl>
          <section className="admin-panel" aria-labelledby="admin-jobs">
            <h2 id="admin-jobs">Scheduled jobs</h2>
            <ul className="admin-list">
              {h.jobs.map((j) => (
                <li key={j.name}>
                  <div>
                    <p className="admin-strong">{j.name}</p>
                    <p className="admin-muted admin-small">
                      {every(j.every_seconds)} · last run {j.last_run_at ? formatDateTime(j.last_run_at) : 'not yet since the start'}
                      {j.last_error ? `: ${j.last_error}` : ''}
                    </p>
                  </div>
                  <span className={`admin-badge ${j.last_ok === false ? 'admin-badge--bad' : j.last_ok ? 'admin-badge--ok' : ''}`}>{j.last_ok === null ? 'waiting' : j.last_ok ? 'ok' : 'failed'}</span>
                </li>
              ))}
            </ul>
          </section>
          <section className="admin-panel" aria-labelledby="admin-errors">
            <h2 id="admin-errors">Last errors</h2>
            {h.last_errors.length ? (
              <ul className="admin-list">
                {h.last_errors.map((e, i) => (
                  <li key={i}>
                    <div>
                      <p className="admin-strong">
                        {e.status} {e.method} {e.url}
                      </p>
                      <p className="admin-muted admin-small">
                        {formatDateTime(e.at)}: {e.message}
                      </p>
                    </div>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="admin-muted">No server errors since the start.</p>
            )}
          </section>
        </>
      ) : null}
    </div>
  );
}
