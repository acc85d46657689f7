/**
 * Finding (issue 11) on the real sample library, both engines at once: the same top hits for the same queries
 * (words, an author, a phrase, a prefix, stemming, accents, a word only inside a chapter, nothing, hostile input),
 * facets and paging, passages only from what the caller may read, snippets escaped, in-book search pages, and the
 * suggestions.
 */
import { catalogSearchResponseSchema, inBookSearchResponseSchema, SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN, searchPaths, suggestResponseSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

const apps: Record<'sqlite' | 'postgres', TestApp> = {} as never;
const readers: Record<'sqlite' | 'postgres', TestClient> = {} as never;

const search = async (engine: 'sqlite' | 'postgres', q: string, extra = '', who: TestClient = readers[engine]) => {
  const res = await who.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}${extra}`);
  expect(res.statusCode, `${engine} ${q}: ${res.body}`).toBe(200);
  return catalogSearchResponseSchema.parse(res.json());
};
const top = async (engine: 'sqlite' | 'postgres', q: string, n = 3) => (await search(engine, q)).results.slice(0, n).map((r) => r.metadata.title);

beforeAll(async () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    apps[engine] = await startTestApp(engine);
    const report = await importSamples(apps[engine].lectern);
    expect(report.failed).toEqual([]);
    [readers[engine]] = await signedInSubscribers(apps[engine].lectern, ['searcher@example.com']);
  }
});
afterAll(async () => {
  for (const app of Object.values(apps)) await app?.close();
});

describe('search on both engines', () => {
  const QUERIES: [string, RegExp | null][] = [
    ['alice', /^Alice's Adventures/],
    ['Lewis Carroll', /^Alice's Adventures/],
    ['"white rabbit"', /^Alice's Adventures/],
    ['wonderl*', /^Alice's Adventures/],
    ['whales', /^Moby-Dick/],
    ['Pequod', /^Moby-Dick/],
    ['martians', /War of the Worlds/],
    ['zzqxj', null],
  ];

  it.each(QUERIES)('%s: the same top hits on SQLite and PostgreSQL', async (q, first) => {
    const [sqlite, postgres] = await Promise.all([top('sqlite', q), top('postgres', q)]);
    expect(sqlite[0] ?? null).toEqual(postgres[0] ?? null);
    if (first) expect(sqlite[0]).toMatch(first);
    else expect(sqlite).toEqual([]);
    expect(new Set(sqlite)).toEqual(new Set(postgres));
  });

  it('finds a word only inside a chapter, with the passage marked and escaped, linking to the reader', async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const r = (await search(engine, 'Pequod')).results[0]!;
      expect(r.passages.length).toBeGreaterThan(0);
      const hit = r.passages[0]!;
      expect(hit.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}Pequod`);
      expect(hit.highlighted_content.replaceAll(SNIPPET_MARK_OPEN, '').replaceAll(SNIPPET_MARK_CLOSE, '')).not.toMatch(/[<>]/);
      expect(hit.web_url).toMatch(/^\/library\/view\/[^/]+\/[^/]+\/.+\?q=Pequod$/);
    }
  });

  it('folds accents: café and cafe are one word', async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      expect(await top(engine, 'CAFÉ', 10)).toEqual(await top(engine, 'cafe', 10));
    }
  });

  it.each(['"', '*', 'NEAR(', ':', '&', '!', "'", '(', '-', 'a"b*c:d&e!f\'g', '"unclosed phrase', 'x'.repeat(10_000)].map((q) => [q.slice(0, 20), q]))('never fails on %j', async (_label, q) => {
    for (const engine of ['sqlite', 'postgres'] as const) await search(engine, q);
  });

  it("counts facets over the whole match set and filters by them; '*' lists everything newest first", async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const all = await search(engine, 'the');
      expect(all.facets.format.map((f) => f.value)).toContain('book');
      const books = await search(engine, 'the', '&format=book');
      expect(books.results.every((r) => r.metadata.content_format === 'book')).toBe(true);
      const paged = await search(engine, 'the', '&page_size=1');
      expect(paged.results).toHaveLength(1);
      expect(paged.next).toContain('page=2');
      const browse = await search(engine, '*');
      const catalog = (await readers[engine].get('/api/v1/book/')).json();
      expect(browse.count).toBe(catalog.count);
    }
  });

  it('gives a visitor passages only from the samples', async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const visitor = new TestClient(apps[engine].lectern.app);
      const mine = await search(engine, 'whale', '', readers[engine]);
      const theirs = await search(engine, 'whale', '', visitor);
      expect(theirs.results[0]!.metadata.title).toBe(mine.results[0]!.metadata.title);
      const moby = (await visitor.get(theirs.results[0]!.metadata.api_url)).json();
      const sampleChapters = new Set(moby.chapters.filter((c: { as_sample: boolean }) => c.as_sample).map((c: { full_path: string }) => c.full_path));
      for (const p of theirs.results[0]!.passages) expect(sampleChapters.has(p.full_path)).toBe(true);
    }
  });

  it('searches inside one book, five a page, with the spec fields', async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const moby = (await search(engine, 'Moby-Dick')).results[0]!.metadata;
      const ask = async (page: number) =>
        inBookSearchResponseSchema.parse((await readers[engine].get(`${searchPaths.inBook()}?query=whale&identifier=${moby.book_id}&page=${page}`)).json());
      const first = await ask(1);
      expect(first.results).toHaveLength(5);
      expect(first.total).toBeGreaterThan(10);
      expect(first.results[0]).toMatchObject({ archive_id: moby.book_id, chapter_title: expect.any(String), minutes_required: expect.any(Number) });
      expect(first.results[0]!.highlighted_content).toContain(SNIPPET_MARK_OPEN);
      const second = await ask(2);
      expect(second.page).toBe(2);
      expect(second.results[0]!.highlighted_content).not.toBe(first.results[0]!.highlighted_content);
      const none = await readers[engine].get(`${searchPaths.inBook()}?query=zzqxj&identifier=${moby.book_id}`);
      expect(none.json()).toEqual({ results: [], total: 0, page: 1 });
      expect((await readers[engine].get(`${searchPaths.inBook()}?query=whale&identifier=nope`)).statusCode).toBe(404);
      expect((await readers[engine].get(`${searchPaths.inBook()}?identifier=${moby.book_id}`)).statusCode).toBe(400);
    }
  });

  it('suggests titles, authors and topics by their beginning; records a selection', async () => {
    for (const engine of ['sqlite', 'postgres'] as const) {
      const res = suggestResponseSchema.parse((await readers[engine].get(`${searchPaths.suggest()}?q=ali`)).json());
      expect(res.suggestions.some((s) => s.kind === 'title' && /^Alice/.test(s.label))).toBe(true);
      const carroll = suggestResponseSchema.parse((await readers[engine].get(`${searchPaths.suggest()}?q=Lewis`)).json());
      expect(carroll.suggestions.some((s) => s.kind === 'author' && s.label === 'Lewis Carroll')).toBe(true);
      const post = await readers[engine].post(searchPaths.selection(), {
        rank: 0, epubarchive_identifier: 'x', scope: 'site', content_type: 'book', selection_type: 'passage', url: '/library/', query: 'whale', session_id: 's',
      });
      expect(post.statusCode).toBe(204);
      expect((await readers[engine].post(searchPaths.selection(), { rank: 'first' })).statusCode).toBe(400);
    }
  });
});
