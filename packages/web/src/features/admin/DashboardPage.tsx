/**
 * The dashboard (docs/decisions.md "The operators' console, web side"): the library's life as pictures over a chosen
 * range, from the first-party analytics and usage data (GET /api/v1/admin/dashboard/): active readers, minutes read,
 * new accounts and trial conversions, imports and their failures per day; the most read titles and topics; the searches
 * that found nothing.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M, type AdminDashboardDay } from '@lectern/core';
import { useState } from 'react';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { DayBars, RankBars } from './Chart.tsx';
import { formatDateTime } from './format.ts';
import { SelectField } from './SelectField.tsx';
import './Dashboard.css';

export const RANGES = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: 365, label: 'Last 12 months' },
] as const;

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** The range ending today (UTC): `days` days, today included. */
export function rangeOf(days: number, now = new Date()): { from: string; to: string } {
  const from = new Date(now.getTime() - (days - 1) * 86_400_000);
  return { from: dayOf(from), to: dayOf(now) };
}

const short = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const series = (days: readonly AdminDashboardDay[], pick: (d: AdminDashboardDay) => number) =>
  days.map((d) => ({ key: d.day, label: short.format(new Date(`${d.day}T00:00:00Z`)), value: pick(d) }));

export function DashboardPage() {
  const [days, setDays] = useState<number>(30);
  const range = rangeOf(days);
  const q = useQuery({ queryKey: adminKeys.dashboard(range), queryFn: ({ signal }) => adminApi.dashboard(range, signal), placeholderData: keepPreviousData });
  const d = q.data;
  return (
    <div className="admin-dashboard">
      <div className="admin-head">
        <h1 className="page-heading">Dashboard</h1>
        <SelectField label={M.rangeLabel} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {RANGES.map((r) => (
            <option key={r.days} value={r.days}>
              {r.label}
            </option>
          ))}
        </SelectField>
      </div>
      {q.isPending ? <Spinner label="Loading…" /> : q.isError ? <ErrorState message={isApiError(q.error) ? q.error.detail : M.loadFailed} onRetry={() => void q.refetch()} /> : null}
      {d ? (
        <div className="admin-charts" aria-busy={q.isFetching || undefined}>
          <DayBars title="Active readers per day" unit="readers" points={series(d.days, (x) => x.active_readers)} />
          <DayBars title="Minutes read per day" unit="minutes" points={series(d.days, (x) => Math.round(x.minutes_read))} />
          <DayBars title="New accounts per day" unit="accounts" points={series(d.days, (x) => x.new_accounts)} />
          <DayBars title="Trial conversions per day" unit="conversions" points={series(d.days, (x) => x.trial_conversions)} />
          <RankBars title="Most read titles" unit="minutes" empty={M.noData} points={d.top_titles.map((t) => ({ key: t.book_id, label: t.title, value: Math.round(t.minutes_read) }))} />
          <RankBars title="Most read topics" unit="minutes" empty={M.noData} points={d.top_topics.map((t) => ({ key: t.slug, label: t.name, value: Math.round(t.minutes_read) }))} />
          <RankBars title="Searches that found nothing" unit="searches" empty={M.noData} points={d.empty_searches.map((s) => ({ key: s.query, label: s.query, value: s.count }))} />
          <DayBars title="Files imported per day" unit="files" points={series(d.days, (x) => x.imports)} />
          <DayBars title="Imports refused per day" unit="files" points={series(d.days, (x) => x.import_failures)} />
          <section className="admin-chart" aria-labelledby="admin-failures">
            <h2 id="admin-failures" className="admin-chart__title">
              Last refused imports
            </h2>
            {d.import_failures.length ? (
              <ul className="admin-list">
                {d.import_failures.map((f, i) => (
                  <li key={i}>
                    <div>
                      <p className="admin-strong">{f.file}</p>
                      <p className="admin-muted admin-small">
                        {formatDateTime(f.at)}: {f.reason}
                      </p>
                    </div>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="admin-muted">{M.noData}</p>
            )}
          </section>
        </div>
      ) : null}
    </div>
  );
}
