/**
 * A phrase whose words fill PostgreSQL's bounded candidates without the phrase (repositories/search.ts
 * PHRASE_CANDIDATES: the newest 40 title rows holding every word): the part ends at the lowest candidate checked,
 * which is not a match. Found by the scale bench under load (docs/performance.md "Under 200 connections"), where
 * `"hash algorithm"` answered 500 on every request at 100,000 titles. Both engines answer the phrase, and an older
 * title that holds it is found on a later page.
 */
import { catalogSearchResponseSchema, searchPaths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, type TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

const WORDS_APART = 45; // more titles holding both words apart than the 40 candidates

describe.each(ENGINES)('a phrase past its candidates on %s', (engine) => {
  let t: TestApp;
  let reader: TestClient;

  beforeAll(async () => {
    t = await startTestApp(engine);
    const book = (n: number, title: string) =>
      t.lectern.services.importer.importBytes(
        epubBook({
          identifier: `urn:uuid:31313131-0000-4000-8000-${String(n).padStart(12, '0')}`,
          title,
          creator: 'Cy Example',
          chapters: [{ path: 'one.xhtml', label: 'One', body: '<h1>One</h1><p>Quiet words about meadows and rivers.</p>' }],
        }),
        `book-${n}.epub`,
      );
    // the oldest holds the phrase; the newer ones hold both words, apart
    await book(0, 'The Hash Algorithm');
    for (let i = 1; i <= WORDS_APART; i++) await book(i, `Algorithm Notes for the Hash Table ${i}`);
    [reader] = await signedInSubscribers(t.lectern, ['phrase@example.com']);
  }, 240_000);
  afterAll(() => t.close());

  it('answers the phrase page by page and finds the older title that holds it', async () => {
    let url: string | null = `${searchPaths.catalog()}?q=${encodeURIComponent('"hash algorithm"')}`;
    const titles: string[] = [];
    for (let pages = 0; url && pages < 10; pages++) {
      const res = await reader.get(url);
      expect(res.statusCode, res.body).toBe(200);
      const page = catalogSearchResponseSchema.parse(res.json());
      titles.push(...page.results.map((r) => r.metadata.title));
      url = page.next;
    }
    expect(titles).toContain('The Hash Algorithm');
    expect(titles.filter((x) => x.startsWith('Algorithm Notes'))).toEqual([]);
  });
});
