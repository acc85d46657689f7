/**
 * The console's dashboard (charts over a chosen range, from first-party data only; docs/decisions.md "Operators'
 * console: the server side") and health page (version, engine, sizes, import queue, the last server errors, the
 * scheduled jobs with their last run).
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AdminDashboard, AdminDashboardQuery, AdminHealth } from '@lectern/core';
import type { AdminDashboardRepository } from '../repositories/admin-dashboard.ts';
import { type AuditLog, parseDetail } from './admin-audit.ts';
import { dayRange, startOfDay } from './admin-range.ts';

const round = (n: number) => Math.round(n * 100) / 100;

/** Distinct empty searches kept per day (the dashboard shows the top few; the rest only stop a flood). */
export const SEARCH_MISSES_PER_DAY = 1000;

/**
 * Scheduled jobs' last runs, kept by the process that runs them (app.ts runs each job through `track`); the health
 * report adds the runs of jobs claimed by other servers (services/scheduled-jobs.ts).
 */
export class JobRuns {
  private readonly jobs = new Map<string, { every_seconds: number; last_run_at: string | null; last_ok: boolean | null; last_error: string | null }>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** `run` wrapped so that each run is noted (the first call names the job); the caller still handles its errors. */
  track<T>(name: string, everyMs: number, run: () => Promise<T>): () => Promise<T> {
    if (!this.jobs.has(name)) this.jobs.set(name, { every_seconds: everyMs / 1000, last_run_at: null, last_ok: null, last_error: null });
    return async () => {
      const entry = this.jobs.get(name)!;
      entry.last_run_at = this.now().toISOString();
      try {
        const result = await run();
        entry.last_ok = true;
        entry.last_error = null;
        return result;
      } catch (err) {
        entry.last_ok = false;
        entry.last_error = err instanceof Error ? err.message : String(err);
        throw err;
      }
    };
  }

  /** A job whose failures are caught inside it says so here. */
  failed(name: string, err: unknown): void {
    const entry = this.jobs.get(name);
    if (!entry) return;
    entry.last_ok = false;
    entry.last_error = err instanceof Error ? err.message : String(err);
  }

  list(): AdminHealth['jobs'] {
    return [...this.jobs].map(([name, j]) => ({ name, ...j }));
  }
}

/** The last server errors (5xx) since start, newest first. */
export class RecentErrors {
  private readonly entries: AdminHealth['last_errors'] = [];
  constructor(
    private readonly max = 20,
    private readonly now: () => Date = () => new Date(),
  ) {}

  note(e: { method: string; url: string; status: number; message: string }): void {
    // the query may hold search words or tokens: the path alone
    this.entries.unshift({ at: this.now().toISOString(), ...e, url: e.url.split('?')[0]! });
    if (this.entries.length > this.max) this.entries.length = this.max;
  }

  list(): AdminHealth['last_errors'] {
    return [...this.entries];
  }
}

export class AdminDashboardService {
  private storeSize: { at: number; bytes: number } | null = null;
  /** the closed days' reading by range (start|end), for the day it was read on (see `dashboard`) */
  private readonly closed = new Map<string, { today: string; reading: Promise<Reading> }>();

  constructor(
    private readonly repo: AdminDashboardRepository,
    private readonly audit: AuditLog,
    private readonly health: {
      version: string;
      engine: 'sqlite' | 'postgres';
      contentRoot: string;
      importQueue: () => { running: number; waiting: number };
      errors: RecentErrors;
      jobs: JobRuns;
      /** jobs run once across servers: when each last ran to its end on any server (services/scheduled-jobs.ts) */
      lastRunsAnywhere: () => Promise<Map<string, string>>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async dashboard(q: AdminDashboardQuery): Promise<AdminDashboard> {
    const { days, start, end } = dayRange(q.from, q.to, this.now());
    // Reading is read from the daily summary (repositories/reading-summary.ts), never the events. Reading before
    // today is closed (events are dated when the server receives them): kept per range until the day turns; today's
    // is read at each request. A year's per-title minutes are summed once a day, not at every view.
    const today = startOfDay(this.now());
    const closedEnd = end < today ? end : today;
    const openStart = start > today ? start : today;
    const [closed, open, accounts, conversions, imports, misses, importEntries] = await Promise.all([
      start < closedEnd ? this.closedReading(start, closedEnd, today) : EMPTY_READING,
      openStart < end ? readingOf(this.repo, openStart, end, false) : EMPTY_READING,
      this.repo.newAccountsByDay(start, end),
      this.repo.conversionsByDay(start, end),
      this.repo.importsByDay(start, end),
      this.repo.searchMisses(days[0]!, days[days.length - 1]!, 20),
      this.audit.importEntries(start, end, 500),
    ]);
    const reading = [...closed.days, ...open.days];
    const [titleRanks, topicRanks] = await Promise.all([
      topOf(closed.titles, open.titles, 10, (ids) => this.repo.titleKeys(ids)),
      topOf(closed.topics, open.topics, 10, (ids) => this.repo.topicKeys(ids)),
    ]);
    const [readers, titleNames, topicNames] = await Promise.all([
      this.repo.readersOf(titleRanks.map((t) => t.id), start, end),
      this.repo.titleNames(titleRanks.map((t) => t.id)),
      this.repo.topicNames(topicRanks.map((t) => t.id)),
    ]);
    const topTitles = titleRanks.map((t) => ({ book_id: t.key, title: titleNames.get(t.id) ?? '', minutes: t.minutes, readers: readers.get(t.id) ?? 0 }));
    const topTopics = topicRanks.map((t) => ({ slug: t.key, name: topicNames.get(t.id) ?? '', minutes: t.minutes }));
    const byDay = <T>(rows: T[], key: (r: T) => string) => new Map(rows.map((r) => [key(r), r]));
    const r = byDay(reading, (x) => x.day);
    const a = byDay(accounts, (x) => x.day);
    const c = byDay(conversions, (x) => x.day);
    const i = byDay(imports, (x) => x.day);
    const failuresByDay = new Map<string, number>();
    const failures: AdminDashboard['import_failures'] = [];
    for (const e of importEntries) {
      const failed = parseDetail(e.detail).failed;
      if (!Array.isArray(failed)) continue;
      failuresByDay.set(e.at.slice(0, 10), (failuresByDay.get(e.at.slice(0, 10)) ?? 0) + failed.length);
      for (const f of failed as { file?: unknown; reason?: unknown }[]) {
        if (failures.length < 20) failures.push({ at: e.at, file: String(f.file ?? ''), reason: String(f.reason ?? '') });
      }
    }
    return {
      from: days[0]!,
      to: days[days.length - 1]!,
      days: days.map((day) => ({
        day,
        active_readers: r.get(day)?.readers ?? 0,
        minutes_read: round(r.get(day)?.minutes ?? 0),
        new_accounts: a.get(day)?.n ?? 0,
        trial_conversions: c.get(day)?.n ?? 0,
        imports: i.get(day)?.n ?? 0,
        import_failures: failuresByDay.get(day) ?? 0,
      })),
      top_titles: topTitles.map((t) => ({ book_id: t.book_id, title: t.title, minutes_read: round(t.minutes), readers: t.readers })),
      top_topics: topTopics.map((t) => ({ slug: t.slug, name: t.name, minutes_read: round(t.minutes) })),
      empty_searches: misses,
      import_failures: failures,
    };
  }

  /**
   * The closed days' reading of [start, end), read once for `today` (the day it is now) and shared by the requests
   * that ask meanwhile; a failed read is not kept.
   */
  private closedReading(start: string, end: string, today: string): Promise<Reading> {
    for (const [k, v] of this.closed) if (v.today !== today) this.closed.delete(k);
    const key = `${start}|${end}`;
    let entry = this.closed.get(key);
    if (!entry) {
      entry = { today, reading: readingOf(this.repo, start, end, true) };
      const kept = entry;
      this.closed.set(key, kept);
      kept.reading.catch(() => this.closed.get(key) === kept && this.closed.delete(key));
      // a handful of ranges an operator switches between
      if (this.closed.size > 8) this.closed.delete(this.closed.keys().next().value!);
    }
    return entry.reading;
  }

  /** Forgets the closed days' reading: a title's topics changed (the console's edit), so its minutes count elsewhere. */
  forgetReading(): void {
    this.closed.clear();
  }

  async healthReport(): Promise<AdminHealth> {
    const [dbBytes, titles, storeBytes, anywhere] = await Promise.all([
      this.repo.databaseBytes().catch(() => null),
      this.repo.titleCount(),
      this.contentStoreBytes(),
      this.health.lastRunsAnywhere(),
    ]);
    return {
      version: this.health.version,
      engine: this.health.engine,
      db_bytes: dbBytes,
      content_store_bytes: storeBytes,
      titles,
      import_queue: this.health.importQueue(),
      last_errors: this.health.errors.list(),
      // a later run on another server (a finished claim: it succeeded) stands for this one's
      jobs: this.health.jobs.list().map((j) => {
        const elsewhere = anywhere.get(j.name);
        return elsewhere && (j.last_run_at === null || elsewhere > j.last_run_at) ? { ...j, last_run_at: elsewhere, last_ok: true, last_error: null } : j;
      }),
    };
  }

  /** A search that found nothing (the dashboard lists what readers look for and the library lacks). */
  recordSearchMiss(query: string): Promise<void> {
    const folded = query.trim().toLowerCase().replace(/\s+/g, ' ').slice(0, 200);
    if (!folded) return Promise.resolve();
    return this.repo.recordMiss(this.now().toISOString().slice(0, 10), folded, SEARCH_MISSES_PER_DAY);
  }

  /** Deletes the empty searches older than `retentionDays` (the hourly retention purge, app.ts; as analytics events). */
  purgeSearchMisses(retentionDays: number): Promise<number> {
    return this.repo.deleteMissesBefore(new Date(this.now().getTime() - retentionDays * 86_400_000).toISOString().slice(0, 10));
  }

  /** The content store's size, walked at most once a minute (a large library has many files). */
  private async contentStoreBytes(): Promise<number> {
    const t = this.now().getTime();
    if (this.storeSize && t - this.storeSize.at < 60_000) return this.storeSize.bytes;
    const bytes = await sizeOf(this.health.contentRoot);
    this.storeSize = { at: t, bytes };
    return bytes;
  }
}

/** Reading over a range: its days' readers and minutes, and the minutes of every title and topic read. */
interface Reading {
  days: { day: string; readers: number; minutes: number }[];
  /** most minutes first, and by id */
  titles: Ranking;
  topics: Ranking;
}

interface Ranking {
  sorted: Ranked[];
  byId: Map<number, Ranked>;
}

/** A title or topic with its minutes; `key` (book id, slug) breaks ties as the order did in SQL. */
interface Ranked {
  id: number;
  key: string;
  minutes: number;
}

const EMPTY_READING: Reading = { days: [], titles: { sorted: [], byId: new Map() }, topics: { sorted: [], byId: new Map() } };

const byMinutes = (a: Ranked, b: Ranked) => b.minutes - a.minutes || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The reading of [start, end) from the daily summary. `keyed`: each title and topic with its key (the closed days,
 * read once and kept); else ids and minutes only (today's, read at each request: a day's titles are thousands, and
 * their keys are looked up only for the few that can make the top, see `topOf`).
 */
async function readingOf(repo: AdminDashboardRepository, start: string, end: string, keyed: boolean): Promise<Reading> {
  const [days, titles, topics] = await Promise.all([
    repo.readingByDay(start, end),
    keyed ? repo.minutesByTitle(start, end) : repo.minutesByTitleId(start, end),
    keyed ? repo.minutesByTopic(start, end) : repo.minutesByTopicId(start, end),
  ]);
  const ranking = (rows: Ranked[]): Ranking => ({ sorted: keyed ? rows.sort(byMinutes) : rows, byId: new Map(rows.map((r) => [r.id, r])) });
  return { days, titles: ranking(titles), topics: ranking(topics) };
}

/**
 * The first `n` of the closed days' ranking (sorted, keyed) and the open day's (keys not read), minutes added up:
 * an entry of the result is either read today or among the first `n` closed entries not read today. The keys that
 * break ties are looked up (`keysOf`) for the entries that can be among the first `n`: those with at least the
 * minutes of the n-th.
 */
async function topOf(closed: Ranking, open: Ranking, n: number, keysOf: (ids: number[]) => Promise<Map<number, string>>): Promise<Ranked[]> {
  const candidates: Ranked[] = [];
  for (const r of closed.sorted) {
    if (candidates.length === n) break;
    if (!open.byId.has(r.id)) candidates.push(r);
  }
  for (const r of open.byId.values()) {
    const before = closed.byId.get(r.id);
    candidates.push({ id: r.id, key: before?.key ?? '', minutes: (before?.minutes ?? 0) + r.minutes });
  }
  candidates.sort((a, b) => b.minutes - a.minutes);
  const nth = candidates[Math.min(n, candidates.length) - 1]?.minutes ?? 0;
  const top = candidates.filter((c) => c.minutes >= nth);
  const missing = top.filter((c) => c.key === '').map((c) => c.id);
  if (missing.length > 0) {
    const keys = await keysOf(missing);
    for (const c of top) if (c.key === '') c.key = keys.get(c.id) ?? '';
  }
  return top.sort(byMinutes).slice(0, n);
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await sizeOf(p);
    else if (e.isFile()) total += (await fs.stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** The running Lectern's version (the root package.json's). */
export function lecternVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
