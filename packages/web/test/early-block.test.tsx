/**
 * A reader address's page asks for its chapter itself (server routes/web.ts EARLY_BLOCK_SCRIPT, api/earlyBlock.ts):
 * the reader's first chapter request takes that answer instead of asking again, once, and only for the book and
 * chapter it names; errors read as any answer's. The page's boot data also answers the router's format question and
 * the account's position the reader waits for (startSession), with no request.
 */
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ArchiveItem, BOOT_DATA_ID, EARLY_BLOCK_GLOBAL } from '@lectern/core';
import { resetBootData } from '../src/api/boot.ts';
import { isApiError } from '../src/api/client.ts';
import { queryKeys } from '../src/api/queryKeys.ts';
import { adoptEarlyBlock, loadBlock } from '../src/features/reader/engine/chapterWorker.ts';
import { PositionStore } from '../src/shared/reading/position.ts';
import { startSession } from '../src/shared/useSession.ts';
import { profile } from './fixtures.ts';
import { json, stubFetch } from './helpers.tsx';

const archiveItem = (href: string, content: string): ArchiveItem => ({
  title: 'A Book',
  chapter_label: 'Two',
  format: 'book',
  source: 'test',
  book_id: 'b1',
  chapter_href: href,
  chapter: href,
  is_system_book: false,
  as_sample: false,
  is_public: false,
  allow_scripts: false,
  next_chapter_uri: null,
  previous_chapter_uri: null,
  top_percentage: 0,
  resources: [{ uri: href, content, content_type: 'text/html', label: 'Two', encoding: 'crypt64', checksum: 'abc', item_order: 1, as_sample: false, is_public: false, stylesheets: [], allow_scripts: false }],
  error: null,
  url: null,
});

const holder = () => window as unknown as Record<string, unknown>;
const pageAsked = (href: string, response: Promise<Response>) => {
  holder()[EARLY_BLOCK_GLOBAL] = { book_id: 'b1', href, response };
};

afterEach(() => {
  delete holder()[EARLY_BLOCK_GLOBAL];
  vi.unstubAllGlobals();
  document.cookie = 'csrftoken=; max-age=0; path=/';
  document.cookie = 'logged_in=; max-age=0; path=/';
  document.getElementById(BOOT_DATA_ID)?.remove();
  resetBootData();
  localStorage.clear();
});

describe("the reader's first chapter request and the page's own", () => {
  it('takes the answer the page asked for and sends nothing; a later open of the chapter asks', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const calls = stubFetch(() => json(200, [archiveItem('text/ch2.xhtml', 'asked again')]));
    pageAsked('text/ch2.xhtml', Promise.resolve(json(200, [archiveItem('text/ch2.xhtml', 'from the page')])));
    const first = await loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null);
    expect(first.items[0]!.resources[0]!.content).toBe('from the page');
    expect(calls).toEqual([]);
    const again = await loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null);
    expect(again.items[0]!.resources[0]!.content).toBe('asked again');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /nest/epub/block/']);
  });

  it('takes it as the app starts (adoptEarlyBlock), and the reader’s first opening of the chapter gets that result', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const calls = stubFetch(() => json(200, [archiveItem('text/ch2.xhtml', 'asked again')]));
    let arrive: (r: Response) => void = () => undefined;
    pageAsked('text/ch2.xhtml', new Promise<Response>((resolve) => (arrive = resolve)));
    adoptEarlyBlock(null);
    expect(holder()[EARLY_BLOCK_GLOBAL]).toBeUndefined();
    const opening = loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null);
    arrive(json(200, [archiveItem('text/ch2.xhtml', 'from the page')]));
    expect((await opening).items[0]!.resources[0]!.content).toBe('from the page');
    expect(calls).toEqual([]);
  });

  it('asks for another chapter, or a prefetch, itself, and forgets the page’s answer', async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const calls = stubFetch((call) => json(200, [archiveItem((call.body as { hrefs: string }).hrefs, 'asked')]));
    pageAsked('text/ch2.xhtml', Promise.resolve(json(200, [archiveItem('text/ch2.xhtml', 'from the page')])));
    expect((await loadBlock({ bookId: 'b1', href: 'text/ch3.xhtml', updateProgress: false }, null)).items[0]!.resources[0]!.content).toBe('asked');
    expect(holder()[EARLY_BLOCK_GLOBAL]).toBeDefined(); // a prefetch leaves it
    expect((await loadBlock({ bookId: 'b1', href: 'text/ch3.xhtml', updateProgress: true }, null)).items[0]!.resources[0]!.content).toBe('asked');
    expect(holder()[EARLY_BLOCK_GLOBAL]).toBeUndefined(); // the first open took it away, unused
    expect((await loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null)).items[0]!.resources[0]!.content).toBe('asked');
    expect(calls).toHaveLength(3);
  });

  it("reads the page's error answer as the client reads any (the server's detail), and asks again after a network failure", async () => {
    document.cookie = 'csrftoken=tok; path=/';
    const calls = stubFetch(() => json(200, [archiveItem('text/ch2.xhtml', 'asked again')]));
    pageAsked('text/ch2.xhtml', Promise.resolve(json(404, { detail: 'No such book.' })));
    const failure = await loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null).catch((e: unknown) => e);
    expect(isApiError(failure) && failure.status === 404 && failure.detail === 'No such book.').toBe(true);
    expect(calls).toEqual([]);
    pageAsked('text/ch2.xhtml', Promise.reject(new TypeError('Failed to fetch')));
    expect((await loadBlock({ bookId: 'b1', href: 'text/ch2.xhtml', updateProgress: true }, null)).items[0]!.resources[0]!.content).toBe('asked again');
    expect(calls).toHaveLength(1);
  });
});

describe("a reader address's boot data", () => {
  const position = { position: { locator: { href: 'text/ch2.xhtml', progression: 0.8 }, updated_at: '2026-11-29T05:00:00.000Z' } };
  const pageWith = (data: unknown) => {
    const el = document.createElement('script');
    el.type = 'application/json';
    el.id = BOOT_DATA_ID;
    el.textContent = JSON.stringify(data);
    document.body.append(el);
  };

  it("answers the title's format and the account's position, applied to this browser's positions, with no request", () => {
    document.cookie = 'logged_in=1; path=/';
    pageWith({ profile, reader: { book_id: 'b1', href: 'text/ch2.xhtml', format: 'book', position } });
    const calls = stubFetch(() => json(500, { detail: 'no request was expected' }));
    const client = new QueryClient();
    startSession(client);
    expect(client.getQueryData(queryKeys.titleFormat('b1'))).toBe('book');
    expect(client.getQueryData(queryKeys.position('b1', profile.user_uuid))).toEqual(position);
    expect(new PositionStore(localStorage).get('b1', 'text/ch2.xhtml')?.progression).toBe(0.8);
    expect(calls).toEqual([]);
  });

  it('leaves a position of another shape alone (the reader asks for it then)', () => {
    document.cookie = 'logged_in=1; path=/';
    pageWith({ profile, reader: { book_id: 'b1', href: 'text/ch2.xhtml', format: 'book', position: { position: { locator: 'x' } } } });
    stubFetch(() => json(500, { detail: 'no request was expected' }));
    const client = new QueryClient();
    startSession(client);
    expect(client.getQueryData(queryKeys.titleFormat('b1'))).toBe('book');
    expect(client.getQueryData(queryKeys.position('b1', profile.user_uuid))).toBeUndefined();
    expect(new PositionStore(localStorage).get('b1', 'text/ch2.xhtml')).toBeNull();
  });
});
