/**
 * Finding (docs/decisions.md "Finding") on the real sample library, both engines at once: the same top hits for the
 * same queries (words, an author, a phrase, a prefix, stemming, accents, a word only inside a chapter, nothing, hostile
 * input), facets and paging, passages only from what the caller may read, snippets escaped, in-book search pages, and
 * the suggestions.
 */
import { catalogSearchResponseSchema, inBookSearchResponseSchema, SNIPPET_MARK_CLOSE, SNIPPET_MARK_OPEN, searchPaths, suggestResponseSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';
import { epubBook } from '../ingest/helpers.ts';
import { PDFDocument, StandardFonts } from 'pdf-lib';

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

/**
 * docs/decisions.md "Search pages to its end; the typed prefix; a visitor's passages", on both engines: a common word's
 * results page to their end (an old book found only by words in its text, behind more passages than one walk sees, is
 * on a later page, each work once); the last word is a prefix ("mart" finds "Martians"); a visitor's passages come from
 * the chapters open to everyone (a sample to jump into) and never from a locked chapter, whose words a subscriber's
 * search does show.
 */
describe.each(['sqlite', 'postgres'] as const)('paging to the end, prefixes, a visitor\'s passages (%s)', (engine) => {
  let t: TestApp;
  let subscriber: TestClient;
  let visitor: TestClient;
  let meadowId: string;
  let twiceId: string;
  // words of their own: one only in the sample chapter, one only in a locked chapter
  const OPEN_WORD = 'zephyrine';
  const LOCKED_WORD = 'quincunxial';
  const prose = (n: number, word: string) =>
    Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1} of the walk: the grass and the hedges, the lane ${i === 3 ? word : 'onward'} and the pond.</p>`).join('');
  const ask = async (who: TestClient, q: string, extra = '') => {
    const res = await who.get(`${searchPaths.catalog()}?q=${encodeURIComponent(q)}${extra}`);
    expect(res.statusCode, res.body).toBe(200);
    return catalogSearchResponseSchema.parse(res.json());
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    // imported first, so every sample book's passages of "the" are newer than its own
    meadowId = (
      await t.lectern.services.importer.importBytes(
        epubBook({
          identifier: 'urn:uuid:21212121-0000-4000-8000-000000000021',
          title: 'Quiet Meadow',
          creator: 'Ann Example',
          chapters: [
            { path: 'one.xhtml', label: 'One', body: `<h1>One</h1>${prose(12, OPEN_WORD)}` },
            { path: 'two.xhtml', label: 'Two', body: `<h1>Two</h1>${prose(12, 'onward')}` },
            { path: 'three.xhtml', label: 'Three', body: `<h1>Three</h1>${prose(12, LOCKED_WORD)}` },
          ],
        }),
        'meadow.epub',
      )
    ).book_id;
    // One work in two formats (title and author alike) imported far apart, every sample between them: its EPUB falls
    // in a later part of a common word's match set than its PDF, and the work is still listed once.
    twiceId = (
      await t.lectern.services.importer.importBytes(
        epubBook({
          identifier: 'urn:uuid:21212121-0000-4000-8000-000000000022',
          title: 'Twice Bound',
          creator: 'Bea Example',
          chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1>${prose(6, 'onward')}` }],
        }),
        'twice.epub',
      )
    ).book_id;
    expect((await importSamples(t.lectern)).failed).toEqual([]);
    const pdf = await PDFDocument.create();
    pdf.setTitle('Twice Bound');
    pdf.setAuthor('Bea Example');
    const font = await pdf.embedFont(StandardFonts.TimesRoman);
    pdf.addPage([595, 842]).drawText('Paragraph one of the walk: the grass and the hedges.', { x: 60, y: 760, size: 14, font });
    await t.lectern.services.importer.importBytes(await pdf.save(), 'twice-bound.pdf');
    [subscriber] = await signedInSubscribers(t.lectern, [`paging-${engine}@example.com`]);
    visitor = new TestClient(t.lectern.app);
  });
  afterAll(() => t?.close());

  it('pages a common word to its end, each work once, the old book found only by its text among them', async () => {
    // one work in two formats imported far apart: its EPUB is in a later part of "the" than its PDF
    const formats = (await subscriber.get(`/api/v1/book/${twiceId}/`)).json().formats.map((f: { book_id: string }) => f.book_id);
    expect(formats).toHaveLength(2);

    const titles: string[] = [];
    let page = await ask(subscriber, 'the', '&page_size=1');
    titles.push(...page.results.map((r) => r.metadata.title));
    for (let n = 2; page.next; n++) {
      expect(n, 'pages never end').toBeLessThan(50);
      expect(page.count_exact).toBe(false);
      const res = await subscriber.get(page.next);
      expect(res.statusCode, res.body).toBe(200);
      page = catalogSearchResponseSchema.parse(res.json());
      expect(page.page).toBe(n);
      titles.push(...page.results.map((r) => r.metadata.title));
    }
    expect(titles).toContain('Quiet Meadow');
    expect(titles).toContain('Twice Bound');
    expect(new Set(titles).size).toBe(titles.length);
    // the last page knows the whole count; a page found from the start without its cursor is the same page
    expect(page.count_exact).toBe(true);
    expect(page.count).toBe(titles.length);
    const again = await ask(subscriber, 'the', `&page_size=1&page=${titles.indexOf('Quiet Meadow') + 1}`);
    expect(again.results.map((r) => r.metadata.title)).toEqual(['Quiet Meadow']);
    // the whole set at once agrees
    const all = await ask(subscriber, 'the', '&page_size=50');
    expect(all.results.map((r) => r.metadata.title).sort()).toEqual([...titles].sort());
    // ...and its facets count every work of it, not only those of the part the page starts in
    expect(all.count_exact).toBe(true);
    expect(all.facets.format.reduce((n, f) => n + f.count, 0)).toBe(all.results.length);
    expect((await subscriber.get(`${searchPaths.catalog()}?q=the&after=nonsense`)).statusCode).toBe(400);
    // filtered to books (the work's EPUB, its lead), the two-format work is still listed once
    const books: string[] = [];
    for (let next: string | null = `${searchPaths.catalog()}?q=the&page_size=1&format=book`; next; ) {
      expect(books.length, 'pages never end').toBeLessThan(50);
      const res = await subscriber.get(next);
      expect(res.statusCode, res.body).toBe(200);
      const p = catalogSearchResponseSchema.parse(res.json());
      books.push(...p.results.map((r) => r.metadata.title));
      next = p.next;
    }
    expect(books.filter((title) => title === 'Twice Bound')).toHaveLength(1);
  });

  it('takes the last word as the beginning of a word: "mart" finds the Martians, and a visitor gets the sample\'s passage', async () => {
    for (const who of [subscriber, visitor]) {
      const found = await ask(who, 'mart');
      const worlds = found.results.find((r) => r.metadata.title === 'The War of the Worlds');
      expect(worlds, JSON.stringify(found.results.map((r) => r.metadata.title))).toBeDefined();
      expect(worlds!.passages.length).toBeGreaterThan(0);
      expect(worlds!.passages[0]!.highlighted_content).toMatch(new RegExp(`${SNIPPET_MARK_OPEN}Mart`, 'i'));
      const chapters = (await who.get(worlds!.metadata.api_url)).json().chapters as { full_path: string; as_sample: boolean; is_public: boolean }[];
      if (who === visitor) for (const p of worlds!.passages) expect(chapters.find((c) => c.full_path === p.full_path)?.as_sample).toBe(true);
    }
    // the beginning of a word only the sample holds finds it; two letters are no prefix
    expect((await ask(subscriber, 'zephyri')).results.map((r) => r.metadata.title)).toEqual(['Quiet Meadow']);
    expect((await ask(subscriber, 'ze')).results).toEqual([]);
  });

  it('never shows a visitor a locked chapter\'s text, in the library search or inside the book; a subscriber sees it', async () => {
    const chapters = (await visitor.get(`/api/v1/book/${meadowId}/`)).json().chapters as { full_path: string; as_sample: boolean }[];
    const sample = chapters.find((c) => c.as_sample)!.full_path;
    expect(sample).toMatch(/one\.xhtml$/);
    const locked = chapters.find((c) => /three\.xhtml$/.test(c.full_path))!;
    expect(locked.as_sample).toBe(false);

    const theirs = (await ask(visitor, LOCKED_WORD)).results.find((r) => r.metadata.title === 'Quiet Meadow');
    expect(theirs?.passages).toEqual([]);
    expect(JSON.stringify(theirs)).not.toContain(LOCKED_WORD);
    const mine = (await ask(subscriber, LOCKED_WORD)).results.find((r) => r.metadata.title === 'Quiet Meadow')!;
    expect(mine.passages.map((p) => p.full_path)).toEqual([locked.full_path]);
    expect(mine.passages[0]!.highlighted_content).toContain(`${SNIPPET_MARK_OPEN}${LOCKED_WORD}`);

    const open = (await ask(visitor, OPEN_WORD)).results.find((r) => r.metadata.title === 'Quiet Meadow')!;
    expect(open.passages.map((p) => p.full_path)).toEqual([sample]);

    const inBook = async (who: TestClient, q: string) =>
      inBookSearchResponseSchema.parse((await who.get(`${searchPaths.inBook()}?query=${q}&identifier=${meadowId}`)).json());
    expect(await inBook(visitor, LOCKED_WORD)).toEqual({ results: [], total: 0, page: 1 });
    expect((await inBook(subscriber, LOCKED_WORD)).total).toBe(1);
    // "the" is in every chapter: a visitor pages through the sample's hits alone
    const visitorThe = await inBook(visitor, 'the');
    expect(visitorThe.total).toBeGreaterThan(0);
    expect(visitorThe.total).toBeLessThan((await inBook(subscriber, 'the')).total);
    expect(visitorThe.results.every((r) => r.full_path === sample)).toBe(true);
  });
});
