/**
 * A year of a library's life for the console bench (bench/console-scale.ts), on a library of
 * bench/generate-library.ts, in bulk SQL (INSERT ... SELECT over a recursive CTE of integers, one statement per
 * table, in one transaction) on either engine: minutes, not hours. Every day of the 365 up to `now`, `readersPerDay`
 * readers (a window of the library's readers that moves by one a day) each send `eventsPerReader` usage events,
 * on titles skewed toward the low ids (the product of two uniform draws), with chapter progress kept as the reader
 * does; accounts created over the year, a third of them trials converted 14 days later (account_history); searches
 * that found nothing, 200 queries a day; an import a day in the audit log, one in five with a refused file; and an
 * operator (admin) to sign in with. Pseudo-random numbers are integer hashes of the row number: deterministic.
 */
import { type Kysely, sql } from 'kysely';
import type { Db } from '../packages/server/src/db/database.ts';
import type { Database } from '../packages/server/src/db/schema.ts';
import { ReadingSummaryRepository } from '../packages/server/src/repositories/reading-summary.ts';
import { hashPassword } from '../packages/server/src/services/passwords.ts';

export interface UsageYearShape {
  /** titles 1..titles exist, each with chaptersPerTitle chapters numbered in title order (generate-library.ts) */
  titles: number;
  chaptersPerTitle: number;
  /** users 1..users exist */
  users: number;
  readersPerDay?: number;
  eventsPerReader?: number;
  days?: number;
  now?: Date;
}

export const CONSOLE_ADMIN_EMAIL = 'operator@bench.example';

/** Odd multipliers of 32-bit multiplicative hashes: one per draw, so that two draws of one row are independent. */
const MULTIPLIERS = [2654435761, 2246822519, 3266489917, 668265263, 374761393, 1597334677, 3812015801, 2860486313, 1181783497, 4021216523];
/** An integer in [0, m) from row number `i`, draw `salt` (products stay below 2^63 on both engines). */
const hash = (i: string, salt: number, m: number) => `((((${i}) + ${salt}) * ${MULTIPLIERS[salt % MULTIPLIERS.length]}) % 4294967296 % ${m})`;

export async function generateUsageYear(db: Db, shape: UsageYearShape, log: (line: string) => void = () => {}): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  const k = db.kysely;
  const days = shape.days ?? 365;
  const readersPerDay = Math.min(shape.readersPerDay ?? 3000, shape.users);
  const perReader = shape.eventsPerReader ?? 2;
  const perDay = readersPerDay * perReader;
  const events = perDay * days;
  const now = shape.now ?? new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = new Date(today - (days - 1) * 86_400_000).toISOString();
  const pg = db.engine === 'postgres';
  /** the ISO text of `first` + d days + s seconds, as the app stores times */
  const isoAt = (d: string, s: string) =>
    pg
      ? sql.raw(`to_char(timestamp '${first.slice(0, 19).replace('T', ' ')}' + (${d}) * interval '1 day' + (${s}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)
      : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '${first}', '+' || (${d}) || ' days', '+' || (${s}) || ' seconds')`);
  /** the integers 0..n-1 as n(i) */
  const numbers = (n: number) => sql.raw(`with recursive n(i) as (select ${pg ? "0::bigint" : "0"} union all select i + 1 from n where i < ${n - 1})`);
  const int = (e: string) => (pg ? `(${e})::bigint` : `(${e})`);

  await k.transaction().execute(async (trx: Kysely<Database>) => {
    // the row i: day d = i / perDay, reader r = (i % perDay) / perReader among the day's window
    const d = `(i / ${perDay})`;
    const reader = `(1 + ((i % ${perDay}) / ${perReader} + ${d}) % ${shape.users})`;
    const t = `(1 + ${hash('i', 1, shape.titles)} * ${hash('i', 7, shape.titles)} / ${shape.titles})`;
    const chapter = `((${t} - 1) * ${shape.chaptersPerTitle} + 1 + ${hash('i', 3, shape.chaptersPerTitle)})`;
    const startPct = hash('i', 5, 60);
    await sql`${numbers(events)}
      insert into usage_events (user_id, usage_uuid, chapter_id, title_id, start_percentage, end_percentage, client_timestamp, usage_is_complete, is_offline, product, received_at)
      select ${sql.raw(int(reader))}, ${sql.raw(pg ? `'year-' || i` : `'year-' || i`)}, ${sql.raw(int(chapter))}, ${sql.raw(int(t))}, ${sql.raw(startPct)},
        ${sql.raw(`${startPct} + 10 + ${hash('i', 11, 40)}`)}, ${isoAt(d, hash('i', 13, 86_400))}, 1, 0, null, ${isoAt(d, hash('i', 13, 86_400))}
      from n`.execute(trx);
    log(`  usage events: ${events} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // the dashboard's daily summary, as the app keeps it with the events it stores
    await new ReadingSummaryRepository(trx).rebuild();
    log(`  their daily summary in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // chapter progress as the reader leaves it: the furthest end and the last time of each reader's chapter
    await sql`insert into chapter_progress (user_id, chapter_id, title_id, top_percentage, updated_at)
      select ue.user_id, ue.chapter_id, max(ue.title_id), max(ue.end_percentage), max(ue.received_at)
      from usage_events ue
      where ue.usage_uuid like 'year-%'
        and not exists (select 1 from chapter_progress cp where cp.user_id = ue.user_id and cp.chapter_id = ue.chapter_id)
      group by ue.user_id, ue.chapter_id`.execute(trx);
    log(`  chapter progress in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // accounts over the year: user u created on day u % days; one in three a trial converted 14 days later
    const created = isoAt(`(id % ${days})`, `(id * 37) % 86400`);
    await sql`update users set created_at = ${created}`.execute(trx);
    await sql`insert into account_history (user_id, event, from_status, to_status, detail, at)
      select id, 'subscribed', 'trial', 'subscriber', '{}', ${isoAt(`(id % ${days}) + 14`, `(id * 37) % 86400`)}
      from users where id % 3 = 0 and (id % ${days}) + 14 < ${days}`.execute(trx);
    // searches that found nothing: 200 queries a day, counts skewed
    await sql`${numbers(days * 200)}
      insert into search_misses (day, query, count)
      select substr(${isoAt(`i / 200`, '0')}, 1, 10), 'missing ' || (i % 200) || ' ' || ${sql.raw(hash('i / 200', 17, 50))}, 1 + ${sql.raw(hash('i', 19, 20))} from n`.execute(trx);
    // an import a day, one in five with a refused file
    await sql`${numbers(days)}
      insert into audit_log (at, actor_id, actor_label, action, target_kind, target_id, detail, ip)
      select ${isoAt('i', '36000')}, null, 'cli', 'import', 'title', 'gen-' || i,
        case when i % 5 = 0 then '{"failed":[{"file":"broken-' || i || '.epub","reason":"not a zip"}]}' else '{}' end, null
      from n`.execute(trx);
    await trx
      .insertInto('users')
      .values({
        uuid: '00000000-0000-4000-8000-00000000c0de',
        email: CONSOLE_ADMIN_EMAIL,
        username: 'operator',
        password_hash: await hashPassword('bench password of the scale library'),
        status: 'subscriber',
        trial_ends_at: null,
        team_id: null,
        is_admin: 1,
        is_content_creator: 0,
        is_preview_creator: 0,
        created_at: now.toISOString(),
      } as never)
      .execute();
  });
  if (pg) await sql`vacuum analyze`.execute(k);
  const seconds = (performance.now() - started) / 1000;
  log(`  a year of usage: ${events} events, accounts, conversions, empty searches, imports in ${seconds.toFixed(1)} s`);
  return { events, seconds };
}

/**
 * Today's full day of reading on a reused year (docs/performance.md, the console bench): a library generated on an
 * earlier day has no events today, and the dashboard's today part (read at every request) would be measured empty.
 * Adds `readersPerDay` readers' `eventsPerReader` events each, dated today (the part of today already passed), as
 * the year's days are drawn, through the daily summary as the app stores events (ReadingSummaryRepository.add), and
 * the day's 200 empty searches; nothing when today already holds most of a day's events.
 */
export async function fillToday(db: Db, shape: UsageYearShape, log: (line: string) => void = () => {}): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  const k = db.kysely;
  const readersPerDay = Math.min(shape.readersPerDay ?? 3000, shape.users);
  const perReader = shape.eventsPerReader ?? 2;
  const perDay = readersPerDay * perReader;
  const now = shape.now ?? new Date();
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
  const have = Number((await k.selectFrom('usage_events').select((eb) => eb.fn.countAll().as('n')).where('received_at', '>=', today).executeTakeFirstOrThrow()).n);
  if (have >= perDay * 0.9) return { events: 0, seconds: 0 };
  const pg = db.engine === 'postgres';
  const passed = Math.max(1, Math.floor((now.getTime() - Date.parse(today)) / 1000));
  const at = (s: string) =>
    pg
      ? sql.raw(`to_char(timestamp '${today.slice(0, 19).replace('T', ' ')}' + (${s}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)
      : sql.raw(`strftime('%Y-%m-%dT%H:%M:%fZ', '${today}', '+' || (${s}) || ' seconds')`);
  const int = (e: string) => (pg ? `(${e})::bigint` : `(${e})`);
  const day = today.slice(0, 10);
  const salt = Math.floor(Date.parse(today) / 86_400_000);
  const reader = `(1 + (i / ${perReader} + ${salt}) % ${shape.users})`;
  const t = `(1 + ${hash(`i + ${salt * perDay}`, 1, shape.titles)} * ${hash(`i + ${salt * perDay}`, 7, shape.titles)} / ${shape.titles})`;
  const chapter = `((${t} - 1) * ${shape.chaptersPerTitle} + 1 + ${hash('i', 3, shape.chaptersPerTitle)})`;
  const startPct = hash('i', 5, 60);
  const added = await k.transaction().execute(async (trx: Kysely<Database>) => {
    const { rows } = await sql<{ user_id: number; usage_uuid: string }>`with recursive n(i) as (select ${sql.raw(pg ? '0::bigint' : '0')} union all select i + 1 from n where i < ${sql.raw(String(perDay - 1))})
      insert into usage_events (user_id, usage_uuid, chapter_id, title_id, start_percentage, end_percentage, client_timestamp, usage_is_complete, is_offline, product, received_at)
      select ${sql.raw(int(reader))}, ${sql.raw(`'today-${day}-' || i`)}, ${sql.raw(int(chapter))}, ${sql.raw(int(t))}, ${sql.raw(startPct)},
        ${sql.raw(`${startPct} + 10 + ${hash('i', 11, 40)}`)}, ${at(hash('i', 13, passed))}, 1, 0, null, ${at(hash('i', 13, passed))}
      from n
      on conflict (user_id, usage_uuid) do nothing
      returning user_id, usage_uuid`.execute(trx);
    await new ReadingSummaryRepository(trx).add(rows);
    await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < 199)
      insert into search_misses (day, query, count)
      select ${day}, 'missing ' || i || ' ' || ${sql.raw(hash(`${salt}`, 17, 50))}, 1 + ${sql.raw(hash('i', 19, 20))} from n
      on conflict (day, query) do nothing`.execute(trx);
    return rows.length;
  });
  if (pg) await sql`analyze reading_day_titles`.execute(k);
  const seconds = (performance.now() - started) / 1000;
  log(`  today's reading: ${added} events and their summary in ${seconds.toFixed(1)} s`);
  return { events: added, seconds };
}
