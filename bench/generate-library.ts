/**
 * A generated library for the scale bench (bench/library-scale.ts), written by bulk SQL inserts in batched
 * transactions on a migrated database of either engine: `titles` works with 5 chapters of generated text each
 * (one ~200-word paragraph per chapter, words drawn Zipf-like from a fixed list so text search has common and
 * rare words), one work in ten also as a PDF document (a work group), ~200 topics and ~2,000 publishers of skewed
 * sizes (the biggest topic holds about a fifth of the library), authors from a pool, and `users` readers with
 * playlists and reading history (positions, chapter progress, usage events). Deterministic for a given size.
 *
 * The search index is written with the rows, batch by batch, as imports would have kept it (`indexBatch` below);
 * after the rows the listing rows and counts are rebuilt as an import would leave them (repositories/listings.ts).
 */
import { randomUUID } from 'node:crypto';
import { authorSortKey, nameKey, titleSortKey, workKey } from '@lectern/core';
import { type Kysely, sql } from 'kysely';
import type { Db } from '../packages/server/src/db/database.ts';
import type { Database } from '../packages/server/src/db/schema.ts';
import { rebuildAllListings } from '../packages/server/src/repositories/listings.ts';
import { ReadingSummaryRepository } from '../packages/server/src/repositories/reading-summary.ts';
import { type SearchDocument, SearchRepository } from '../packages/server/src/repositories/search.ts';
import { hashPassword } from '../packages/server/src/services/passwords.ts';
import { passagesOf } from '../packages/server/src/util/search-text.ts';
import { mulberry32 } from '../packages/server/test/fixtures/prng.ts';

export interface LibraryShape {
  titles: number;
  users: number;
  topics?: number;
  publishers?: number;
  chaptersPerTitle?: number;
  wordsPerChapter?: number;
  /** false: no search index (the console's bench reads none of it) */
  searchIndex?: boolean;
}

export interface GeneratedLibrary {
  titles: number;
  chapters: number;
  /** slug of the topic with the most titles, and its count */
  bigTopic: { slug: string; titles: number };
  /** slug of the publisher with the most titles, and its count */
  bigPublisher: { slug: string; titles: number };
  /** every user's password */
  password: string;
  userEmail: (i: number) => string;
  seconds: { rows: number; derived: number };
}

export const BENCH_PASSWORD = 'bench password of the scale library';

/** Picks index i of n with weight 1/(i+1) (Zipf, s = 1) by inverting the cumulative weights. */
function zipf(n: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cumulative[i] = sum += 1 / (i + 1);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const REAL_WORDS = (
  'data system network server client request database query index table page cache memory thread process kernel ' +
  'function method class object module package library compiler parser syntax token stream buffer socket packet ' +
  'protocol security password encryption key certificate signature hash algorithm graph tree list array queue ' +
  'stack heap pointer reference value type interface contract test build release deploy container cluster node ' +
  'service message event schedule worker job pipeline storage volume backup replica shard partition transaction ' +
  'lock latency throughput scale performance profile trace log metric alert monitor design pattern architecture ' +
  'layer model view controller route handler template render browser script style layout font image video audio ' +
  'chapter section paragraph reader author editor publisher library learning course lesson practice example ' +
  'exercise solution problem question answer theory proof lemma theorem matrix vector tensor gradient learning ' +
  'network neural training inference dataset feature label sample statistic probability distribution variance ' +
  'river mountain forest ocean island harbour garden winter summer evening morning history journey letter ' +
  'the of and to in is that for it as with was on be by this are from at or an but not have which one all'
).split(' ');
const SYLLABLES = 'ka ri to na mu se lo vi de pa ru ne ti mo la be so fi gu ze'.split(' ');

/** ~2,000 words: the real ones first (the commonest under Zipf), then made-up ones of 2-3 syllables. */
function wordList(): string[] {
  const words = [...new Set(REAL_WORDS)];
  const random = mulberry32(7);
  while (words.length < 2000) {
    const n = 2 + Math.floor(random() * 2);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!words.includes(w)) words.push(w);
  }
  return words;
}

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

async function insertBatches<T extends keyof Database & string>(db: Kysely<Database>, table: T, rows: Record<string, unknown>[], columns: number) {
  // Under SQLite's 32,766 bound parameters (and PostgreSQL's 65,535) per statement.
  const size = Math.max(1, Math.floor(30_000 / columns));
  for (let i = 0; i < rows.length; i += size) {
    await db.insertInto(table).values(rows.slice(i, i + size) as never).execute();
  }
}

/** Writes the library into a migrated, empty database. */
export async function generateLibrary(db: Db, shape: LibraryShape, log: (line: string) => void = () => {}): Promise<GeneratedLibrary> {
  const started = performance.now();
  const k = db.kysely;
  const random = mulberry32(shape.titles);
  const words = wordList();
  const word = zipf(words.length, random);
  const topicCount = shape.topics ?? 200;
  const publisherCount = shape.publishers ?? 2000;
  const chaptersPerTitle = shape.chaptersPerTitle ?? 5;
  const wordsPerChapter = shape.wordsPerChapter ?? 200;
  const pickTopic = zipf(topicCount, random);
  const pickPublisher = zipf(publisherCount, random);
  const authorPool = Array.from({ length: Math.max(50, Math.floor(shape.titles / 5)) }, (_, i) => {
    const r = mulberry32(i + 1);
    return `${cap(words[Math.floor(r() * 400)]!)} ${cap(words[400 + Math.floor(r() * 1500)]!)}son`;
  });
  const pickAuthor = zipf(authorPool.length, random);
  const text = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(words[word()]!);
    return out.join(' ');
  };

  const topics = Array.from({ length: topicCount }, (_, i) => ({ id: i + 1, slug: `topic-${i + 1}`, name: `${cap(words[i]!)} ${i + 1}` })).map((t) => ({ ...t, name_key: nameKey(t.name) }));
  const publishers = Array.from({ length: publisherCount }, (_, i) => ({ id: i + 1, slug: `publisher-${i + 1}`, name: `${cap(words[(i * 7) % words.length]!)} Press ${i + 1}` })).map((p) => ({ ...p, name_key: nameKey(p.name) }));
  await k.transaction().execute(async (trx) => {
    await insertBatches(trx, 'topics', topics, 4);
    await insertBatches(trx, 'publishers', publishers, 4);
  });

  const rebuildIndexes = await deferIndexes(db, ['search_docs', 'chapters', 'title_authors', 'title_topics', 'title_publishers']);

  const topicTitles = new Array<number>(topicCount).fill(0);
  const publisherTitles = new Array<number>(publisherCount).fill(0);
  const epoch = Date.parse('2023-01-01T00:00:00Z');
  let nextId = 1;
  let nextChapterId = 1;
  const BATCH = 2000;
  for (let first = 0; first < shape.titles; first += BATCH) {
    const titles: Record<string, unknown>[] = [];
    const authors: Record<string, unknown>[] = [];
    const titleTopics: Record<string, unknown>[] = [];
    const titlePublishers: Record<string, unknown>[] = [];
    const chapters: Record<string, unknown>[] = [];
    const docs: { titleId: number; doc: SearchDocument; chapterIds: Map<string, number> }[] = [];
    const addTitle = (id: number, title: string, names: string[], format: 'book' | 'document', workTitleId: number | null, createdAt: string, subjects: string[]) => {
      const bookId = `gen-${String(id).padStart(7, '0')}`;
      const description = text(30);
      titles.push({
        id,
        book_id: bookId,
        title,
        title_safe: bookId,
        description,
        content_format: format,
        source: format === 'book' ? 'application/epub+zip' : 'application/pdf',
        language: 'en',
        issued: String(1990 + (id % 35)),
        identifier: null,
        cover_path: null,
        cover_media_type: null,
        allow_scripts: 0,
        is_system_book: 0,
        page_count: format === 'document' ? 40 : null,
        file_sha256: `generated-${id}`,
        origin: 'bench',
        created_at: createdAt,
        sort_title: titleSortKey(title),
        sort_author: authorSortKey(names),
        work_key: workKey(title, names),
        work_title_id: workTitleId,
      });
      names.forEach((name, position) => authors.push({ title_id: id, position, name, name_key: nameKey(name) }));
      // the document an import indexes (services/search.ts `backfill` builds the same from the stored rows)
      const doc: SearchDocument = { title, people: names.join(' '), subjects: subjects.join(' '), description, passages: [] };
      const chapterIds = new Map<string, number>();
      docs.push({ titleId: id, doc, chapterIds });
      for (let c = 1; c <= chaptersPerTitle; c++) {
        const paragraph = text(wordsPerChapter);
        const content = `<h2>Chapter ${c}</h2><p>${paragraph}</p>`;
        chapterIds.set(`text/ch${c}.xhtml`, nextChapterId);
        if (shape.searchIndex !== false) passagesOf(content).forEach((body, passage_no) => doc.passages.push({ full_path: `text/ch${c}.xhtml`, passage_no, body }));
        chapters.push({
          id: nextChapterId++,
          title_id: id,
          full_path: `text/ch${c}.xhtml`,
          label: `Chapter ${c}: ${cap(words[word()]!)}`,
          item_order: c,
          media_type: 'application/xhtml+xml',
          content,
          stylesheets: '[]',
          text_length: paragraph.length,
          as_sample: c === 1 ? 1 : 0,
          is_public: 0,
          sample_content: null,
        });
      }
    };
    for (let i = first; i < Math.min(first + BATCH, shape.titles); i++) {
      const id = nextId++;
      const title = `${random() < 0.3 ? 'The ' : ''}${cap(words[word()]!)} ${cap(words[word()]!)}${random() < 0.5 ? ` of ${cap(words[word()]!)}` : ''}`;
      const names = random() < 0.05 ? [] : random() < 0.8 ? [authorPool[pickAuthor()]!] : [authorPool[pickAuthor()]!, authorPool[pickAuthor()]!];
      const createdAt = new Date(epoch + Math.floor(random() * 3 * 365 * 86_400_000)).toISOString();
      addTitle(id, title, names, 'book', null, createdAt, []);
      const own = new Set<number>();
      const topicsOfTitle = 1 + Math.floor(random() * 2);
      for (let t = 0; t < topicsOfTitle; t++) own.add(pickTopic());
      for (const t of own) {
        titleTopics.push({ title_id: id, topic_id: t + 1 });
        topicTitles[t]!++;
      }
      const p = pickPublisher();
      titlePublishers.push({ title_id: id, publisher_id: p + 1, position: 0 });
      publisherTitles[p]!++;
      // the own row's subjects: its topics (by name, as the catalog orders them), then its publisher
      docs[docs.length - 1]!.doc.subjects = [...[...own].map((t) => topics[t]!.name).sort(), publishers[p]!.name].join(' ');
      // One work in ten also as a PDF: a second title of the work, pointing at the first.
      if (i % 10 === 0) {
        const twin = nextId++;
        addTitle(twin, title, names, 'document', id, createdAt, [publishers[p]!.name]);
        titlePublishers.push({ title_id: twin, publisher_id: p + 1, position: 0 });
      }
    }
    await k.transaction().execute(async (trx) => {
      await insertBatches(trx, 'titles', titles, 22);
      await insertBatches(trx, 'title_authors', authors, 4);
      await insertBatches(trx, 'title_topics', titleTopics, 2);
      await insertBatches(trx, 'title_publishers', titlePublishers, 3);
      await insertBatches(trx, 'chapters', chapters, 12);
      if (shape.searchIndex !== false) await new SearchRepository(trx, db.engine).writeMany(trx, docs, 500);
    });
    if ((first / BATCH) % 10 === 0) log(`  titles ${first + BATCH > shape.titles ? shape.titles : first + BATCH} / ${shape.titles}`);
  }
  const totalTitles = nextId - 1;
  await rebuildIndexes?.();

  // Readers: each has a default playlist and a second one, a few titles read (position, progress, usage).
  const passwordHash = await hashPassword(BENCH_PASSWORD);
  const userEmail = (i: number) => `reader${i}@bench.example`;
  const now = new Date().toISOString();
  for (let first = 1; first <= shape.users; first += 1000) {
    const users: Record<string, unknown>[] = [];
    const collections: Record<string, unknown>[] = [];
    const items: Record<string, unknown>[] = [];
    const positions: Record<string, unknown>[] = [];
    const progress: Record<string, unknown>[] = [];
    const usage: Record<string, unknown>[] = [];
    for (let u = first; u < Math.min(first + 1000, shape.users + 1); u++) {
      users.push({
        id: u,
        uuid: randomUUID(),
        email: userEmail(u),
        username: `reader${u}`,
        password_hash: passwordHash,
        status: 'subscriber',
        trial_ends_at: null,
        team_id: null,
        is_admin: 0,
        is_content_creator: 0,
        is_preview_creator: 0,
        created_at: now,
      });
      for (const [index, name] of ['Queue', 'To read'].entries()) {
        const id = randomUUID();
        collections.push({ id, user_id: u, name, description: '', is_default: index === 0 ? 1 : 0, created_at: now, updated_at: now });
        const seen = new Set<number>();
        for (let p = 0; p < 10; p++) {
          const titleId = 1 + Math.floor(random() * totalTitles);
          if (seen.has(titleId)) continue;
          seen.add(titleId);
          items.push({ collection_id: id, api_url: `/api/v1/book/gen-${String(titleId).padStart(7, '0')}/`, title_id: titleId, chapter_id: null, position: p, added_at: now });
        }
      }
      const read = new Set<number>();
      for (let r = 0; r < 5; r++) read.add(1 + Math.floor(random() * totalTitles));
      for (const titleId of read) {
        // Chapter ids follow title ids in insertion order: chapters of title t are (t-1)*n+1 .. t*n.
        const chapterId = (titleId - 1) * chaptersPerTitle + 1 + Math.floor(random() * chaptersPerTitle);
        const when = new Date(Date.parse(now) - Math.floor(random() * 60 * 86_400_000)).toISOString();
        const progression = Math.round(random() * 100) / 100;
        positions.push({ user_id: u, title_id: titleId, chapter_id: chapterId, locator: JSON.stringify({ href: `text/ch${1 + ((chapterId - 1) % chaptersPerTitle)}.xhtml`, progression }), updated_at: when });
        progress.push({ user_id: u, chapter_id: chapterId, title_id: titleId, top_percentage: Math.round(progression * 100), updated_at: when });
        usage.push({
          user_id: u,
          usage_uuid: randomUUID(),
          chapter_id: chapterId,
          title_id: titleId,
          start_percentage: 0,
          end_percentage: Math.round(progression * 100),
          client_timestamp: when,
          usage_is_complete: 1,
          is_offline: 0,
          product: null,
          received_at: when,
        });
      }
    }
    await k.transaction().execute(async (trx) => {
      await insertBatches(trx, 'users', users, 13);
      await insertBatches(trx, 'collections', collections, 7);
      await insertBatches(trx, 'collection_items', items, 6);
      await insertBatches(trx, 'reading_positions', positions, 5);
      await insertBatches(trx, 'chapter_progress', progress, 5);
      await insertBatches(trx, 'usage_events', usage, 11);
    });
  }
  // the dashboard's daily summary, as the app keeps it with the events it stores (once: it reads every event)
  await k.transaction().execute((trx) => new ReadingSummaryRepository(trx).rebuild());
  if (db.engine === 'postgres') {
    // Explicit ids leave the identity sequences behind: move them past the rows, so later imports get fresh ids.
    for (const table of ['topics', 'publishers', 'titles', 'chapters', 'users']) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(k);
    }
  }
  const rowsDone = performance.now();
  log(`  rows written in ${((rowsDone - started) / 1000).toFixed(1)} s; deriving listings`);

  await rebuildAllListings(k);
  // PostgreSQL's autovacuum would vacuum and analyze the new tables soon after (which also merges the GIN indexes'
  // pending lists, that every search reads whole until then); SQLite is left as the app leaves it (no ANALYZE ever
  // runs there), so its plans are the ones a real install gets.
  if (db.engine === 'postgres') await sql`vacuum analyze`.execute(k);

  const big = topicTitles.indexOf(Math.max(...topicTitles));
  const bigP = publisherTitles.indexOf(Math.max(...publisherTitles));
  return {
    titles: totalTitles,
    chapters: nextChapterId - 1,
    bigTopic: { slug: topics[big]!.slug, titles: topicTitles[big]! },
    bigPublisher: { slug: publishers[bigP]!.slug, titles: publisherTitles[bigP]! },
    password: BENCH_PASSWORD,
    userEmail,
    seconds: { rows: (rowsDone - started) / 1000, derived: (performance.now() - rowsDone) / 1000 },
  };
}

/**
 * PostgreSQL: drops the secondary indexes of the bulk-written tables and gives back what builds them again, with
 * every row in place (one sort each, instead of a GIN or B-tree insert per row: the GIN indexes on the search rows'
 * tsvectors were most of the generation's hour). The definitions are read from the catalog, so they stay the
 * migrations'. SQLite: nothing (its FTS tables are the index and are written with the rows).
 */
async function deferIndexes(db: Db, tables: readonly string[]): Promise<(() => Promise<void>) | null> {
  if (db.engine !== 'postgres') return null;
  const k = db.kysely;
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    select i.indexname, i.indexdef from pg_indexes i
    where i.schemaname = current_schema() and i.tablename in (${sql.join([...tables])})
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(k);
  for (const r of rows) await sql`drop index ${sql.id(r.indexname)}`.execute(k);
  return () =>
    k.connection().execute(async (c) => {
      await sql`set maintenance_work_mem = '512MB'`.execute(c);
      for (const r of rows) await sql.raw(r.indexdef).execute(c);
    });
}
