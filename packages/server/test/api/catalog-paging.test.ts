/**
 * Keyset paging of the catalog listings (migration 0009, repositories/listings.ts) on both engines: walking `next`
 * from the first page to the last, and `previous` back, gives every title of a listing exactly once and in the
 * listing's order, titles sharing a sort key included; counts are the maintained ones; a cursor that was not
 * given out is a 400 naming `cursor`.
 */
import { CATALOG_MESSAGES, CATALOG_OFFSET_MAX, contentMetadataSchema, pagedSchema } from '@lectern/core';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

const pageSchema = pagedSchema(contentMetadataSchema);
type Page = ReturnType<typeof pageSchema.parse>;

describe.each(ENGINES)('catalog keyset paging on %s', (engine) => {
  let t: TestApp;
  let anon: TestClient;
  const get = async (url: string): Promise<Page> => {
    const res = await anon.get(url);
    expect(res.statusCode, url).toBe(200);
    return pageSchema.parse(res.json());
  };

  beforeAll(async () => {
    t = await startTestApp(engine);
    expect((await importSamples(t.lectern)).failed).toEqual([]);
    // Four works that share a title (one sort key, four ids), two sharing an author too, and one without an author.
    const pdf = async (title: string, author: string | null, topics: string[]) => {
      const doc = await PDFDocument.create();
      doc.setTitle(title);
      if (author) doc.setAuthor(author);
      doc.addPage();
      return t.lectern.services.importer.importBytes(await doc.save(), 'upload.pdf', { topics });
    };
    for (const author of ['Ann Archer', 'Bo Brand', 'Cy Cole', 'Di Dale']) await pdf('Same Title', author, ['paging']);
    await pdf('Another Title', 'Bo Brand', ['paging']);
    await pdf('A Same Title', null, ['paging', 'second-topic']);
    await pdf('Zed', 'Ann Archer', []);
    anon = new TestClient(t.lectern.app);
  });
  afterAll(() => t.close());

  const filters = ['', '&topic=paging', '&format=document', '&format=book', '&topic=paging&format=document'];
  for (const sort of ['title', 'recent', 'author']) {
    it(`walks every page of each listing by ${sort}, forwards and back, each title once and in order`, async () => {
      for (const filter of filters) {
        const base = `/api/v1/book/?sort=${sort}${filter}`;
        const whole = await get(`${base}&page_size=100`);
        expect(whole.next, base).toBeNull();
        const expected = whole.results.map((b) => b.book_id);
        expect(whole.count, base).toBe(expected.length);
        expect(new Set(expected).size).toBe(expected.length);

        const pages: string[][] = [];
        let page = await get(`${base}&page_size=2`);
        expect(page.previous).toBeNull();
        pages.push(page.results.map((b) => b.book_id));
        while (page.next) {
          expect(page.next).toMatch(/[?&]cursor=/);
          page = await get(page.next);
          expect(page.count, base).toBe(expected.length);
          pages.push(page.results.map((b) => b.book_id));
        }
        expect(pages.flat(), base).toEqual(expected);
        expect(pages.slice(0, -1).every((p) => p.length === 2), base).toBe(true);
        // Older clients' page numbers reach the same pages.
        for (const [i, expectedPage] of pages.entries()) {
          expect((await get(`${base}&page_size=2&page=${i + 1}`)).results.map((b) => b.book_id), `${base} page ${i + 1}`).toEqual(expectedPage);
        }

        // And back from the last page to the first, by `previous`.
        const back: string[][] = [pages.at(-1)!];
        while (page.previous) {
          page = await get(page.previous);
          back.unshift(page.results.map((b) => b.book_id));
        }
        expect(back, base).toEqual(pages);
      }
    });
  }

  it('keeps the shared sort key in id order and the authorless title last by author', async () => {
    const byTitle = (await get('/api/v1/book/?topic=paging&page_size=100')).results;
    const same = byTitle.filter((b) => b.title === 'Same Title' || b.title === 'A Same Title');
    expect(same).toHaveLength(5);
    const ids = await Promise.all(same.map(async (b) => (await t.lectern.services.catalog.requireTitle(b.book_id)).id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const byAuthor = (await get('/api/v1/book/?topic=paging&sort=author&page_size=100')).results;
    expect(byAuthor.at(-1)?.title).toBe('A Same Title');
    expect(byAuthor.slice(0, 2).map((b) => b.authors[0])).toEqual(['Ann Archer', 'Bo Brand']);
  });

  it('counts each topic as its page does, from the maintained counts', async () => {
    const topics = (await anon.get('/api/v1/topics/')).json().results as { slug: string; count: number }[];
    expect(topics.find((x) => x.slug === 'paging')?.count).toBe(6);
    expect(topics.find((x) => x.slug === 'second-topic')?.count).toBe(1);
    for (const topic of topics) expect((await get(`/api/v1/book/?topic=${topic.slug}&page_size=1`)).count, topic.slug).toBe(topic.count);
  });

  it('pages a publisher and a topic within a publisher', async () => {
    const all = (await get('/api/v1/book/?page_size=100')).results;
    const publisher = all.find((b) => b.publishers.length)!;
    const detail = (await anon.get(publisher.api_url)).json<{ publisher_entries: { slug: string }[] }>();
    const pub = detail.publisher_entries[0]!.slug;
    const whole = await get(`/api/v1/book/?publisher=${pub}&page_size=100`);
    expect(whole.count).toBeGreaterThan(0);
    const walked: string[] = [];
    let page = await get(`/api/v1/book/?publisher=${pub}&page_size=1`);
    walked.push(...page.results.map((b) => b.book_id));
    while (page.next) {
      page = await get(page.next);
      walked.push(...page.results.map((b) => b.book_id));
    }
    expect(walked).toEqual(whole.results.map((b) => b.book_id));
    // A topic and a publisher together: counted per request, paged the same way.
    const none = await get(`/api/v1/book/?publisher=${pub}&topic=paging`);
    expect(none).toMatchObject({ count: 0, results: [], next: null });
  });

  it('refuses a cursor it did not give out, naming cursor, and a page number past the numbered pages, naming page', async () => {
    const first = await get('/api/v1/book/?page_size=1');
    const next = new URL(first.next!, 'http://x');
    const cursor = next.searchParams.get('cursor')!;
    const [body, sum] = cursor.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ s: 'title', d: 'a', k: ['zzz', 1] })).toString('base64url');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [flip(body, 3), `${body}.${flip(sum, 0)}`, body, `${forged}.${sum}`, 'not a cursor', `${cursor}.x`, '']) {
      const res = await anon.get(`/api/v1/book/?page_size=1&cursor=${encodeURIComponent(bad)}`);
      if (bad === '') continue; // an empty parameter is no cursor
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().errors, bad).toEqual({ cursor: [CATALOG_MESSAGES.cursorInvalid] });
    }
    // A cursor of one order is not one of another.
    const other = await anon.get(`/api/v1/book/?page_size=1&sort=author&cursor=${encodeURIComponent(cursor)}`);
    expect(other.statusCode).toBe(400);
    expect(Object.keys(other.json().errors)).toEqual(['cursor']);
    // The genuine one works.
    expect((await anon.get(`/api/v1/book/?page_size=1&cursor=${encodeURIComponent(cursor)}`)).statusCode).toBe(200);

    const deep = await anon.get(`/api/v1/book/?page_size=10&page=${CATALOG_OFFSET_MAX / 10 + 2}`);
    expect(deep.statusCode).toBe(400);
    expect(Object.keys(deep.json().errors)).toEqual(['page']);
    expect((await anon.get(`/api/v1/book/?page_size=10&page=${CATALOG_OFFSET_MAX / 10 + 1}`)).json().results).toEqual([]);
  });
});
