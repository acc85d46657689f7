/**
 * What migration 0027 (search in Chinese and Japanese) costs an operator with a large library: its scan for the
 * search rows that hold Chinese or Japanese characters (`holdsCjk`), over a search_docs table of ROWS passages of
 * ~120 English words with curly quotes, dashes and accents (the non-ASCII every English book has) and one passage
 * in 2,000 holding Japanese. Both engines:
 *  - SQLite: the migration's byte search against the anchor a GLOB character class (the obvious way, rejected);
 *  - PostgreSQL (DATABASE_URL, default the CI database): the migration's regular expression against the anchor a
 *    scan that reads every body (`length(body)`).
 * The two queries alternate, ROUNDS rounds (at least 5; one warm-up first), and the bench prints the median and
 * range of each in ms and of the ratio per round.
 *
 *   npx tsx bench/search-cjk-migration.ts      (ROWS=400000 ROUNDS=5 by default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { holdsCjk } from '../packages/server/src/db/migrations/0027_search_cjk.ts';
import { summary } from './stats.ts';

const ROWS = Number(process.env.ROWS ?? 400_000);
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 5));
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const WORDS = 'the whale “sea” ship captain’s Ahab white — ocean harpoon sailor voyage deck mast wind storm café naïve'.split(' ');
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const passage = (i: number) => Array.from({ length: 120 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + (i % 2000 === 0 ? ' 吾輩は猫である。' : '');
const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, title_id: Math.floor(i / 10) + 1, body: passage(i) }));

function time(run: () => unknown): { ms: number; result: unknown } {
  const start = performance.now();
  const result = run();
  return { ms: performance.now() - start, result };
}
async function timeAsync(run: () => Promise<unknown>): Promise<{ ms: number; result: unknown }> {
  const start = performance.now();
  const result = await run();
  return { ms: performance.now() - start, result };
}

function report(name: string, ours: number[], anchor: number[], anchorName: string) {
  const ratios = ours.map((o, i) => o / anchor[i]!);
  console.log(`${name}: migration scan ${summary(ours, 0)} ms, ${anchorName} ${summary(anchor, 0)} ms, ratio ${summary(ratios)} (${ROUNDS} rounds, ${ROWS} rows)`);
}

async function main() {
  console.log(`building ${ROWS} passages…`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-cjk-bench-'));
  const lite = new Database(path.join(dir, 'bench.db'));
  lite.exec(`create table search_docs (id integer primary key, title_id integer not null, chapter_id integer, passage_no integer not null default 0,
    title text not null default '', people text not null default '', subjects text not null default '', description text not null default '', body text not null default '')`);
  const insert = lite.prepare('insert into search_docs (id, title_id, chapter_id, body) values (?, ?, 1, ?)');
  lite.transaction(() => rows.forEach((r) => insert.run(r.id, r.title_id, r.body)))();
  const ours = lite.prepare(`select count(distinct title_id) as n from search_docs where ${holdsCjk('sqlite')}`);
  const glob = lite.prepare(`select count(distinct title_id) as n from search_docs where ${['title', 'people', 'subjects', 'description', 'body'].map((c) => `${c} glob '*[぀-ヿ㐀-鿿豈-﫿]*'`).join(' or ')}`);
  const expected = Math.ceil(ROWS / 2000);
  const sqliteOurs: number[] = [];
  const sqliteAnchor: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const a = time(() => ours.get());
    const b = time(() => glob.get());
    if ((a.result as { n: number }).n !== expected) throw new Error(`SQLite scan found ${JSON.stringify(a.result)}, expected ${expected}`);
    if (round === 0) continue;
    sqliteOurs.push(a.ms);
    sqliteAnchor.push(b.ms);
  }
  report('SQLite', sqliteOurs, sqliteAnchor, 'GLOB class');
  lite.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query('drop table if exists cjk_bench_docs');
    await client.query(`create table cjk_bench_docs (id integer primary key, title_id integer not null, title text not null default '', people text not null default '',
      subjects text not null default '', description text not null default '', body text not null default '')`);
    for (let i = 0; i < rows.length; i += 5000) {
      const batch = rows.slice(i, i + 5000);
      await client.query('insert into cjk_bench_docs (id, title_id, body) select * from unnest($1::int[], $2::int[], $3::text[])', [batch.map((r) => r.id), batch.map((r) => r.title_id), batch.map((r) => r.body)]);
    }
    await client.query('analyze cjk_bench_docs');
    const pgOurs: number[] = [];
    const pgAnchor: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const a = await timeAsync(() => client.query(`select count(distinct title_id) as n from cjk_bench_docs where ${holdsCjk('postgres')}`));
      const b = await timeAsync(() => client.query('select count(distinct title_id) as n from cjk_bench_docs where length(body) > 0 or length(title) > 0'));
      const n = Number((a.result as pg.QueryResult<{ n: string }>).rows[0]!.n);
      if (n !== expected) throw new Error(`PostgreSQL scan found ${n}, expected ${expected}`);
      if (round === 0) continue;
      pgOurs.push(a.ms);
      pgAnchor.push(b.ms);
    }
    report('PostgreSQL', pgOurs, pgAnchor, 'reading every body');
  } finally {
    await client.query('drop table if exists cjk_bench_docs');
    await client.end();
  }
}

await main();
