/**
 * The console's dashboard (charts over a chosen range, from first-party data only; docs/decisions.md "Operators'
 * console: the server side") and health page (version, engine, sizes, import queue, the last server errors, the
 * scheduled jobs with their last run).
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AdminDashboard, AdminDashboardQuery, AdminHealth } from '@lectern/core';
import type { AdminDashboardRepository, DayCount } from '../repositories/admin-dashboard.ts';
import type { AuditLogRow } from '../db/schema.ts';
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
  /** the closed days of each range (start|end), for the day they were read on (see `dashboard`) */
  private readonly closed = new Map<string, { today: string; part: Promise<ClosedPart> }>();

  constructor(
    private readonly repo: AdminDashboardRepository,
    private readonly audit: AuditLog,
    private readonly health: {
      version: string;
      engine: 'sqlite' | 'postgres';
      contentRoot: string;
      /** the store's size when it is not the folder `contentRoot` (an S3 bucket: its objects listed) */
      contentBytes?: () => Promise<number>;
      /** the import queue on every server (the import_jobs table) */
      importQueue: () => Promise<{ running: number; waiting: number }> | { running: number; waiting: number };
      errors: RecentErrors;
      jobs: JobRuns;
      /** jobs run once across servers: when each last ran to its end on any server (services/scheduled-jobs.ts) */
      lastRunsAnywhere: () => Promise<Map<string, string>>;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * A range's figures in two parts (docs/decisions.md "The dashboard: kept closed days, today read from the top").
   * Days before today are closed (events, accounts, searches and imports are dated when the server receives them):
   * everything of them is read once per range and kept until the day turns. Today's part is read at each request
   * and kept small: today's day rows, today's ~200 topic rows, today's empty searches (at most
   * SEARCH_MISSES_PER_DAY), and of today's thousands of title rows only those that can reach the top (topTitles).
   */
  async dashboard(q: AdminDashboardQuery): Promise<AdminDashboard> {
    const { days, start, end } = dayRange(q.from, q.to, this.now());
    const today = startOfDay(this.now());
    const closedEnd = end < today ? end : today;
    const openStart = start > today ? start : today;
    const hasOpen = openStart < end;
    const [closed, open] = await Promise.all([
      start < closedEnd ? this.closedPart(start, closedEnd, today) : EMPTY_CLOSED,
      hasOpen ? readPart(this.repo, this.audit, openStart, end, false) : EMPTY_PART,
    ]);
    const [titleRanks, topicRanks] = await Promise.all([
      hasOpen ? topTitles(this.repo, closed.reading.titles, openStart, end, 10) : topOf(closed.reading.titles, EMPTY_RANKING, 10, (ids) => this.repo.titleKeys(ids)),
      topOf(closed.reading.topics, open.reading.topics, 10, (ids) => this.repo.topicKeys(ids)),
    ]);
    const ids = titleRanks.map((t) => t.id);
    const [closedReaders, openReaders, titleNames, topicNames] = await Promise.all([
      this.closedReaders(closed, ids, start, closedEnd),
      hasOpen ? this.repo.readersOf(ids, openStart, end) : new Map<number, Set<number>>(),
      this.repo.titleNames(ids),
      this.repo.topicNames(topicRanks.map((t) => t.id)),
    ]);
    const readers = (id: number) => {
      const before = closedReaders.get(id);
      const now = openReaders.get(id);
      if (!now?.size) return before?.size ?? 0;
      if (!before?.size) return now.size;
      let n = before.size;
      for (const u of now) if (!before.has(u)) n++;
      return n;
    };
    const byDay = <T>(rows: T[], key: (r: T) => string) => new Map(rows.map((r) => [key(r), r]));
    const r = byDay([...closed.reading.days, ...open.reading.days], (x) => x.day);
    const a = byDay([...closed.accounts, ...open.accounts], (x) => x.day);
    const c = byDay([...closed.conversions, ...open.conversions], (x) => x.day);
    const i = byDay([...closed.imports, ...open.imports], (x) => x.day);
    const failuresByDay = new Map<string, number>();
    const failures: AdminDashboard['import_failures'] = [];
    // newest first, as one read of the range: today's entries come after every closed day's
    for (const e of [...open.importEntries, ...closed.importEntries].slice(0, IMPORT_ENTRIES)) {
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
      top_titles: titleRanks.map((t) => ({ book_id: t.key, title: titleNames.get(t.id) ?? '', minutes_read: round(t.minutes), readers: readers(t.id) })),
      top_topics: topicRanks.map((t) => ({ slug: t.key, name: topicNames.get(t.id) ?? '', minutes_read: round(t.minutes) })),
      empty_searches: topMisses(closed.misses, open.misses, 20),
      import_failures: failures,
    };
  }

  /**
   * The closed days [start, end) read once for `today` (the day it is now) and shared by the requests that ask
   * meanwhile; a failed read is not kept.
   */
  private closedPart(start: string, end: string, today: string): Promise<ClosedPart> {
    for (const [k, v] of this.closed) if (v.today !== today) this.closed.delete(k);
    const key = `${start}|${end}`;
    let entry = this.closed.get(key);
    if (!entry) {
      entry = { today, part: readPart(this.repo, this.audit, start, end, true).then((p) => ({ ...p, readers: new Map() })) };
      const kept = entry;
      this.closed.set(key, kept);
      kept.part.catch(() => this.closed.get(key) === kept && this.closed.delete(key));
      // a handful of ranges an operator switches between
      if (this.closed.size > 8) this.closed.delete(this.closed.keys().next().value!);
    }
    return entry.part;
  }

  /** Who read these titles on the closed days, read once per title and kept with the closed part. */
  private async closedReaders(closed: ClosedPart, ids: number[], start: string, end: string): Promise<Map<number, Set<number>>> {
    const missing = ids.filter((id) => !closed.readers.has(id));
    if (missing.length && start < end) {
      const read = this.repo.readersOf(missing, start, end);
      for (const id of missing) closed.readers.set(id, read.then((m) => m.get(id) ?? new Set()));
      // a failed read is not kept
      read.catch(() => missing.forEach((id) => closed.readers.delete(id)));
    }
    const result = new Map<number, Set<number>>();
    for (const id of ids) result.set(id, (await closed.readers.get(id)) ?? new Set());
    return result;
  }

  /** Forgets the closed days: a title's topics changed (the console's edit), so its minutes count elsewhere. */
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
      import_queue: await this.health.importQueue(),
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
    const bytes = this.health.contentBytes ? await this.health.contentBytes() : await sizeOf(this.health.contentRoot);
    this.storeSize = { at: t, bytes };
    return bytes;
  }
}

/** At most this many import entries of a range are read (their failures are listed, 20 of them). */
const IMPORT_ENTRIES = 500;

/** Reading over a range: its days' readers and minutes, and the minutes of every title and topic read. */
interface Reading {
  days: { day: string; readers: number; minutes: number }[];
  /** most minutes first, and by id */
  titles: Ranking;
  topics: Ranking;
}

/** A part of a range: its reading (today's titles are not read here: see topTitles), accounts, searches, imports. */
interface Part {
  reading: Reading;
  accounts: DayCount[];
  conversions: DayCount[];
  imports: DayCount[];
  misses: Misses;
  /** newest first, at most IMPORT_ENTRIES */
  importEntries: AuditLogRow[];
}

/** The closed days' part, kept: and who read the titles asked about, read once each. */
interface ClosedPart extends Part {
  readers: Map<number, Promise<Set<number>>>;
}

/** Queries that found nothing: each with its count, and (the closed part) most often first. */
interface Misses {
  counts: Map<string, number>;
  sorted: [string, number][];
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

const EMPTY_RANKING: Ranking = { sorted: [], byId: new Map() };
const EMPTY_READING: Reading = { days: [], titles: EMPTY_RANKING, topics: EMPTY_RANKING };
const EMPTY_PART: Part = { reading: EMPTY_READING, accounts: [], conversions: [], imports: [], misses: { counts: new Map(), sorted: [] }, importEntries: [] };
const EMPTY_CLOSED: ClosedPart = { ...EMPTY_PART, readers: new Map() };

const byMinutes = (a: Ranked, b: Ranked) => b.minutes - a.minutes || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * The figures of [start, end). `closed`: the days before today, read once and kept, every title read with its key;
 * else today's, read at each request: its titles are left to topTitles, which reads the few that can make the top.
 */
async function readPart(repo: AdminDashboardRepository, audit: AuditLog, start: string, end: string, closed: boolean): Promise<Part> {
  const [days, titles, topics, accounts, conversions, imports, misses, importEntries] = await Promise.all([
    repo.readingByDay(start, end),
    closed ? repo.minutesByTitle(start, end) : [],
    closed ? repo.minutesByTopic(start, end) : repo.minutesByTopicId(start, end),
    repo.newAccountsByDay(start, end),
    repo.conversionsByDay(start, end),
    repo.importsByDay(start, end),
    repo.searchMisses(start.slice(0, 10), dayBefore(end)),
    audit.importEntries(start, end, IMPORT_ENTRIES),
  ]);
  const ranking = (rows: Ranked[]): Ranking => ({ sorted: closed ? rows.sort(byMinutes) : rows, byId: new Map(rows.map((r) => [r.id, r])) });
  return {
    reading: { days, titles: ranking(titles), topics: ranking(topics) },
    accounts,
    conversions,
    imports,
    misses: { counts: new Map(misses.map((m) => [m.query, m.count])), sorted: closed ? misses.map((m): [string, number] => [m.query, m.count]).sort(byCount) : [] },
    importEntries,
  };
}

/** The day (YYYY-MM-DD) before an instant that starts a day: the last day of a range that ends there. */
const dayBefore = (instant: string) => new Date(Date.parse(instant) - 86_400_000).toISOString().slice(0, 10);

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
  return keyedTop(candidates, n, keysOf);
}

/** The first `n` of exact candidates, the keys of those that can be among them looked up first. */
async function keyedTop(candidates: Ranked[], n: number, keysOf: (ids: number[]) => Promise<Map<number, string>>): Promise<Ranked[]> {
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

/**
 * The most read `n` titles of a range whose open part is [openStart, end): the closed days' ranking (kept) plus
 * today's minutes, exactly, without reading all of today's title rows (a day of a large library's reading is
 * thousands). Today's rows are read from the most read down (the index of 0045) and today's minutes of the first `m`
 * closed titles by their ids; any other title has at most the (m+1)-th closed minutes plus the last today's
 * minutes read, so once the n-th exact total is above that bound no title left unread can enter (the threshold
 * algorithm of Fagin, Lotem and Naor, with two lists). Otherwise both reads go twice as deep. An open part of more
 * than one day (a range that ends after today) is read whole.
 */
async function topTitles(repo: AdminDashboardRepository, closed: Ranking, openStart: string, end: string, n: number): Promise<Ranked[]> {
  const keysOf = (ids: number[]) => repo.titleKeys(ids);
  const day = openStart.slice(0, 10);
  if (Date.parse(end) - Date.parse(openStart) > 86_400_000) {
    const rows = await repo.minutesByTitleId(openStart, end);
    return topOf(closed, { sorted: rows, byId: new Map(rows.map((r) => [r.id, r])) }, n, keysOf);
  }
  const today = new Map<number, number>();
  let m = n + 22;
  let batch = 64;
  let read = 0;
  let last = Infinity;
  let exhausted = false;
  for (;;) {
    const ids = closed.sorted.slice(0, m).map((r) => r.id).filter((id) => !today.has(id));
    const [known, rows] = await Promise.all([repo.titleMinutesOn(day, ids), exhausted ? [] : repo.titlesOnByMinutes(day, batch, read)]);
    for (const id of ids) today.set(id, known.get(id) ?? 0);
    for (const row of rows) today.set(row.id, row.minutes);
    if (!exhausted) {
      read += rows.length;
      if (rows.length < batch) exhausted = true;
      else last = rows[rows.length - 1]!.minutes;
    }
    const candidates = [...today].map(([id, minutes]) => {
      const before = closed.byId.get(id);
      return { id, key: before?.key ?? '', minutes: (before?.minutes ?? 0) + minutes };
    });
    candidates.sort((a, b) => b.minutes - a.minutes);
    const everyone = exhausted && closed.sorted.length <= m;
    const bound = (closed.sorted[m]?.minutes ?? 0) + (exhausted ? 0 : last);
    if (everyone || (candidates.length >= n && candidates[n - 1]!.minutes > bound)) {
      return keyedTop(candidates, n, keysOf);
    }
    m *= 2;
    batch *= 2;
  }
}

/**
 * The `n` queries that most often found nothing: today's (at most SEARCH_MISSES_PER_DAY) with their closed counts
 * added, and the closed days' first ones not searched today (as topOf). Byte order of the query breaks ties.
 */
function topMisses(closed: Misses, open: Misses, n: number): { query: string; count: number }[] {
  const candidates: [string, number][] = [];
  for (const entry of closed.sorted) {
    if (candidates.length === n) break;
    if (!open.counts.has(entry[0])) candidates.push(entry);
  }
  for (const [q, count] of open.counts) candidates.push([q, (closed.counts.get(q) ?? 0) + count]);
  return candidates
    .sort(byCount)
    .slice(0, n)
    .map(([query, count]) => ({ query, count }));
}

const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

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
