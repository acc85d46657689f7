/**
 * Chinese and Japanese titles, on both engines: addresses (title, topic, publisher) in their own script; and search: text written without spaces between words is found by any run
 * of its characters (each indexed as a word of its own), marked in the snippet where the characters stand, shown
 * as written (no spaces put in), and a library indexed before this is indexed again (migration 0027 + the
 * backfill) with SQLite's FTS tables left consistent.
 */
import { catalogSearchResponseSchema, CJK_CHARACTERS, inBookSearchResponseSchema, searchPaths, SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN } from '@lectern/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up as reindexCjk } from '../../src/db/migrations/0027_search_cjk.ts';
import { SearchRepository } from '../../src/repositories/search.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

// Natsume Sōseki, 吾輩は猫である (1905), and the Analects: both in the public domain.
const CAT = '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。';
const MORE = '吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。';
const ANALECTS = '学而时习之，不亦说乎？有朋自远方来，不亦乐乎？';

const book = () =>
  epubBook({
    identifier: 'urn:uuid:7b0c3f5e-1d2a-4c6b-9e8f-0a1b2c3d4e5f',
    title: '吾輩は猫である',
    creator: '夏目漱石',
    language: 'ja',
    metadata: ['<dc:subject>小説</dc:subject>', '<dc:publisher>青空文庫</dc:publisher>'],
    chapters: [
      { path: 'one.xhtml', label: '一', body: `<h1>一</h1><p>${CAT}</p>${`<p>${MORE}</p>`.repeat(12)}` },
      { path: 'two.xhtml', label: '二', body: `<h1>二</h1><p>${ANALECTS}</p><p>Printed in Tokyo.</p><p>今日は<ruby>晴天<rp>(</rp><rt>せいてん</rt><rp>)</rp></ruby>なり。</p>` },
    ],
  });

const plain = (snippet: string) => snippet.replaceAll(SNIPPET_MARK_OPEN, '').replaceAll(SNIPPET_MARK_CLOSE, '');

it('spaces only characters whose UTF-8 starts with E3-E9, EF or F0, the bytes migration 0027 looks for', () => {
  const spaced: number[] = [];
  const one = new RegExp(CJK_CHARACTERS.source, 'u');
  for (let cp = 0x80; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (one.test(String.fromCodePoint(cp))) spaced.push(cp);
  }
  expect(spaced.length).toBeGreaterThan(90_000);
  const lead = (cp: number) => Buffer.from(String.fromCodePoint(cp))[0]!;
  expect(spaced.filter((cp) => !((lead(cp) >= 0xe3 && lead(cp) <= 0xe9) || lead(cp) === 0xef || lead(cp) === 0xf0))).toEqual([]);
});

describe.each(ENGINES)('search in Chinese and Japanese (%s)', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  let bookId: string;
  const inBook = async (query: string) => {
    const res = await reader.get(`${searchPaths.inBook()}?query=${encodeURIComponent(query)}&identifier=${bookId}`);
    expect(res.statusCode, res.body).toBe(200);
    return inBookSearchResponseSchema.parse(res.json());
  };
  const catalog = async (q: string) => {
    const res = await reader.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}`);
    expect(res.statusCode, res.body).toBe(200);
    return catalogSearchResponseSchema.parse(res.json());
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    bookId = (await t.lectern.services.importer.importBytes(book(), 'neko.epub')).book_id;
    [reader] = await signedInSubscribers(t.lectern, [`cjk-${engine}@example.com`]);
  });
  afterAll(() => t?.close());

  it('finds one character and a run of them inside a sentence, marked where they stand, the text as written', async () => {
    const cat = await inBook('猫');
    expect(cat.total).toBe(1);
    expect(cat.results[0]!.highlighted_content).toContain(`吾輩は${SNIPPET_MARK_OPEN}猫${SNIPPET_MARK_CLOSE}である`);
    // the chapter's text as stored (a space where one block ends and the next begins), none put in between characters
    expect(['一', CAT, ...Array<string>(12).fill(MORE)].join(' ')).toContain(plain(cat.results[0]!.highlighted_content).replace(/^… | …$/g, ''));

    const name = await inBook('名前');
    expect(name.results[0]!.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}名前${SNIPPET_MARK_CLOSE}はまだ無い`);
    // the characters in another order are not the word
    expect((await inBook('前名')).total).toBe(0);
    // kana with a voicing mark are their own characters (だ is not た), in the query as in the index
    expect((await inBook('じめじめ')).results[0]!.highlighted_content).toContain(`薄暗い${SNIPPET_MARK_OPEN}じめじめ${SNIPPET_MARK_CLOSE}した`);
    expect((await inBook('しめしめ')).total).toBe(0);
    // a word on every page of the chapter: the chapter is cut into passages by its characters (three to a word)
    expect((await inBook('人間')).total).toBeGreaterThan(1);
  });

  it('finds Chinese, and the English words of the same book as before', async () => {
    const friend = await inBook('有朋');
    expect(friend.results.map((r) => r.full_path)).toEqual(['two.xhtml']);
    expect(friend.results[0]!.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}有朋${SNIPPET_MARK_CLOSE}自远方来`);
    expect((await inBook('tokyo')).results[0]!.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}Tokyo.${SNIPPET_MARK_CLOSE}`);
  });

  it('reads a word with ruby by its base text: the reading (furigana) is not searched', async () => {
    const fine = await inBook('晴天なり');
    expect(fine.total).toBe(1);
    expect(fine.results[0]!.highlighted_content).toContain(`今日は${SNIPPET_MARK_OPEN}晴天なり${SNIPPET_MARK_CLOSE}`);
    expect((await inBook('せいてん')).total).toBe(0);
  });

  it('finds the title by a part of its name, its author and its text in the catalog', async () => {
    for (const q of ['猫', '漱石', '見当']) {
      const found = await catalog(q);
      expect(found.results.map((r) => r.metadata.book_id), q).toContain(bookId);
    }
    const byText = (await catalog('見当')).results.find((r) => r.metadata.book_id === bookId)!;
    expect(byText.passages[0]!.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}見当${SNIPPET_MARK_CLOSE}`);
  });

  it('gives the title, its topic and its publisher addresses in their own script (not "untitled", not dropped)', async () => {
    const title = (await reader.get(`/api/v1/book/${bookId}/`)).json();
    expect(title.chapters[0].web_url).toBe(`/library/view/${encodeURIComponent('吾輩は猫である')}/${bookId}/one.xhtml`);
    const topic = await reader.get(`/api/v1/topics/${encodeURIComponent('小説')}/`);
    expect(topic.statusCode, topic.body).toBe(200);
    expect(topic.json().name).toBe('小説');
    const publisher = await reader.get(`/api/v1/publishers/${encodeURIComponent('青空文庫')}/`);
    expect(publisher.statusCode, publisher.body).toBe(200);
    expect(publisher.json().name).toBe('青空文庫');
  });

  it('indexes again what was indexed before this (migration 0027, then the backfill), FTS tables consistent', async () => {
    // The title's rows as the index held them before: the same rows, each field one unspaced run of characters.
    const k = t.lectern.db.kysely;
    const titleId = (await k.selectFrom('titles').select('id').where('book_id', '=', bookId).executeTakeFirstOrThrow()).id;
    const rows = await k.selectFrom('search_docs').select(['id', 'title_id', 'chapter_id', 'passage_no', 'title', 'people', 'subjects', 'description', 'body']).where('title_id', '=', titleId).execute();
    await k.transaction().execute((trx) => new SearchRepository(k, engine).removeTitle(trx, titleId));
    if (engine === 'sqlite') {
      await k.insertInto('search_docs').values(rows).execute();
      for (const r of rows) {
        if (r.chapter_id === null) {
          await sql`insert into search_name_fts(rowid, title) values (${r.id}, ${r.title})`.execute(k);
          await sql`insert into search_title_fts(rowid, title, people, subjects, description) values (${r.id}, ${r.title}, ${r.people}, ${r.subjects}, ${r.description})`.execute(k);
        } else await sql`insert into search_passage_fts(rowid, body) values (${r.id}, ${r.body})`.execute(k);
      }
    } else {
      for (const r of rows) {
        await sql`insert into search_docs (id, title_id, chapter_id, passage_no, title, people, subjects, description, body, doc) values (${r.id}, ${r.title_id}, ${r.chapter_id}, ${r.passage_no}, ${r.title}, ${r.people}, ${r.subjects}, ${r.description}, ${r.body},
          to_tsvector('lectern', ${`${r.title} ${r.people} ${r.subjects} ${r.description} ${r.body}`}))`.execute(k);
      }
    }
    expect((await inBook('猫')).total).toBe(0); // the old index: 猫 is inside a longer word

    await reindexCjk(k as never, engine);
    expect(await k.selectFrom('search_docs').select('id').where('title_id', '=', titleId).execute()).toEqual([]);
    expect(await t.lectern.services.search.backfill()).toBe(1);
    expect((await inBook('猫')).total).toBe(1);
    if (engine === 'sqlite') {
      for (const fts of ['search_name_fts', 'search_title_fts', 'search_passage_fts']) {
        await sql`insert into ${sql.table(fts)}(${sql.ref(fts)}) values ('integrity-check')`.execute(k);
      }
    }
    // and a title so indexed is taken out whole when its book is removed or replaced
    await k.transaction().execute((trx) => new SearchRepository(k, engine).removeTitle(trx, titleId));
    expect((await inBook('猫')).total).toBe(0);
  });
});
