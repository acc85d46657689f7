/// <reference lib="webworker" />
/**
 * The chapter worker (DESIGN.md "Reader engine": decryption must never block the page beyond a frame). It takes
 * a chapter's whole way in off the main thread: the POST /nest/epub/block/ request through the one typed client
 * (its own instance, with the page's CSRF token, since a worker cannot read cookies), the JSON and schema check, and
 * the crypt64 decryption with its checksum. So the answer is not left waiting while the page is busy with the click
 * that asked for it, and a long chapter never blocks scrolling.
 */
import { decryptChapter, encryptChapter, paths, type ArchiveItem, type DecryptChapterResult } from '@lectern/core';
import { ApiError, createApiClient } from '../../../api/client.ts';
import { getBlockWith, prefetchBookFiles } from '../../../api/reader.ts';
import { sliceChapter, type SlicedChapter } from './chapterSlices.ts';
import { pageFirstScreen, pageFirstScreenPossible } from './pageFirstScreen.ts';
import { responseOf } from '../../../api/earlyBlock.ts';
import type { WorkerRequest, WorkerResponse } from './chapterWorker.ts';

const post = (message: WorkerResponse) => (self as unknown as Worker).postMessage(message);

/**
 * The client's schemas (zod), a chunk of this worker's own, which its client asks for with its first request. Not
 * asked for as the worker starts: the chunk could then arrive while the worker waits for the page's answer, and its
 * compile (tens of ms) run ahead of the first screen; asked for with the answer, it is compiled after the first
 * screen's work. (Measured both ways, docs/performance.md "The first screen before the schema check": within the
 * noise of each other.)
 */
const loadSchemas = () => import('../../../api/schemas.ts');
const running = new Map<number, AbortController>();

function decrypt(content: string, checksum: string, key: string, bookId: string, chapterHref: string): DecryptChapterResult {
  try {
    return decryptChapter(content, checksum, key, bookId, chapterHref);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
}

/** The page's answer decrypted before its schema check (firstScreenUnchecked), kept for the checked answer. */
interface Unchecked {
  bookId: string;
  href: string;
  content: string;
  checksum: string;
  key: string;
  decrypted: DecryptChapterResult;
  sliced: SlicedChapter | null;
}

/** A chapter item's stylesheets asked for (see finish), once per answer. */
function prefetchStylesheets(bookId: string, href: string, stylesheets: readonly string[]) {
  if (stylesheets.length === 0) return;
  const base = new URL(paths.chapterApi(bookId, href), self.location.origin);
  prefetchBookFiles(stylesheets.map((s) => new URL(s, base).href));
}

/** The chapter of a block answer decrypted with `key` (and, when long, cut into slices), posted to the page. */
function finish(id: number, items: ArchiveItem[], key: string | null, early: Unchecked | null) {
  const item = items[0];
  const chapter = item?.resources[0];
  let decrypted: DecryptChapterResult | null = null;
  let sliced: SlicedChapter | null = null;
  // The same chapter, already decrypted before the check: not decrypted twice.
  const done =
    early && item && chapter && early.key === key && early.bookId === item.book_id && early.href === item.chapter_href && early.content === chapter.content && early.checksum === chapter.checksum
      ? early
      : null;
  // Its stylesheets first, on their way while the chapter is decrypted and the page renders the reader: the
  // document's first layout waits for them (ChapterView's stylesheetsSettled); asked for once it was written, they
  // came tens to hundreds of ms late, and after the decryption still some tens.
  if (item && chapter && !done) prefetchStylesheets(item.book_id, item.chapter_href, chapter.stylesheets);
  if (key && item && chapter?.encoding === 'crypt64' && chapter.checksum) {
    if (done) decrypted = done.decrypted;
    else {
      decrypted = decrypt(chapter.content, chapter.checksum, key, item.book_id, item.chapter_href);
      performance.mark('reader:worker-decrypted');
    }
    // The page needs the ciphertext only to try another key; a decrypted chapter travels once, as its HTML.
    if (decrypted.ok) {
      chapter.content = '';
      // A long chapter's slices worked out here: a scan of all its markup, tens of milliseconds the page is spared.
      sliced = done ? done.sliced : sliceChapter(decrypted.html);
    }
  }
  post({ kind: 'block', id, items, decrypted, sliced });
}

/** Whether the page's first screen, or word that none is coming, has been posted: said once, for the page's request. */
let firstScreenSaid = false;
function sayNoFirstScreen(): void {
  if (firstScreenSaid) return;
  firstScreenSaid = true;
  post({ kind: 'no-first-screen' });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * The page's own answer read as it came, before the client has checked it against its schema: zod, which the check
 * needs, is a chunk of its own (about half of this worker's code) that loads meanwhile, so the worker starts sooner
 * and the page's first screen (pageFirstScreen.ts) does not wait for it. The fields that decide whether and what it
 * paints are looked at for their type (the rest it writes goes through escapeHtml, which takes strings only, and a
 * throw here costs only the head start); the checked answer follows as always (finish; its JSON parsed again there,
 * its decryption not), and an answer the check refuses is the reader's error, which takes the page's frame away
 * (ReaderPage's releasePageFrame). Null when there is nothing to paint ahead: an error status, no key, no view, not a
 * crypt64 chapter, an answer of another shape.
 */
function firstScreenUnchecked(request: Extract<WorkerRequest, { kind: 'block' }>): Unchecked | null {
  const { answer, key, view } = request;
  if (!answer || answer.status !== 200 || !key || !view) return null;
  // (where the page's answer reached the worker: bench/long-chapter-trace.ts reads it)
  performance.mark('reader:worker-answer-in');
  let items: unknown;
  try {
    items = JSON.parse(new TextDecoder().decode(answer.bytes));
  } catch {
    return null;
  }
  const item: unknown = Array.isArray(items) ? items[0] : null;
  const chapter: unknown = isRecord(item) && Array.isArray(item.resources) ? item.resources[0] : null;
  if (
    !isRecord(item) ||
    !isRecord(chapter) ||
    typeof item.book_id !== 'string' ||
    typeof item.chapter_href !== 'string' ||
    chapter.encoding !== 'crypt64' ||
    typeof chapter.content !== 'string' ||
    typeof chapter.checksum !== 'string' ||
    !chapter.checksum ||
    typeof item.allow_scripts !== 'boolean' ||
    typeof chapter.allow_scripts !== 'boolean' ||
    typeof chapter.label !== 'string' ||
    (item.chapter_label != null && typeof item.chapter_label !== 'string') ||
    !isStringList(chapter.stylesheets) ||
    (item.rendition != null && !isRecord(item.rendition)) ||
    (item.root_attributes != null && !isRecord(item.root_attributes)) ||
    (item.top_percentage != null && typeof item.top_percentage !== 'number')
  ) {
    return null;
  }
  prefetchStylesheets(item.book_id, item.chapter_href, chapter.stylesheets);
  // (said before the decryption when none can come: the app's start waits for it on a long chapter's page)
  const possible = pageFirstScreenPossible(item as unknown as ArchiveItem, view, chapter.content.length);
  if (!possible) sayNoFirstScreen();
  const decrypted = decrypt(chapter.content, chapter.checksum, key, item.book_id, item.chapter_href);
  performance.mark('reader:worker-decrypted');
  const sliced = decrypted.ok ? sliceChapter(decrypted.html) : null;
  if (decrypted.ok && possible) {
    try {
      const first = pageFirstScreen(item as unknown as ArchiveItem, decrypted.html, sliced, view);
      if (first) {
        performance.mark('reader:worker-first-screen');
        post(first);
        firstScreenSaid = true;
      }
    } catch {
      /* the reader shows it itself */
    }
  }
  return { bookId: item.book_id, href: item.chapter_href, content: chapter.content, checksum: chapter.checksum, key, decrypted, sliced };
}

async function block(request: Extract<WorkerRequest, { kind: 'block' }>) {
  const abort = new AbortController();
  running.set(request.id, abort);
  try {
    const client = createApiClient({ csrfToken: () => request.csrf, storage: null });
    // The page's own early request's answer, when the page sent one (api/earlyBlock.ts): read, not asked again.
    const asked = getBlockWith(client, request.params, abort.signal, request.answer ? Promise.resolve(responseOf(request.answer)) : undefined);
    // (its first screen first, while the client's schemas load; a failure here costs only that head start)
    let early: Unchecked | null = null;
    try {
      early = firstScreenUnchecked(request);
    } catch {
      early = null;
    } finally {
      // (the page's own request: whatever stopped it, the page's start is told that no first screen is coming)
      if (request.view) sayNoFirstScreen();
    }
    // The cipher compiled and optimised while the answer is on its way, not on the chapter (once per worker). An
    // answer already here (the page's own request) is not kept waiting for it: a long chapter's decryption is
    // optimised as it runs, and the page warms the worker once the chapter is on screen (warmChapterWorkerJit).
    if (!request.answer) warm();
    const items = await asked;
    performance.mark('reader:worker-block-parsed');
    finish(request.id, items, request.key, early);
  } catch (e) {
    if ((e as Error)?.name === 'AbortError') post({ kind: 'error', id: request.id, aborted: true });
    else if (e instanceof ApiError) post({ kind: 'error', id: request.id, api: { status: e.status, detail: e.detail, errors: e.errors, url: e.url, statusText: e.statusText } });
    else post({ kind: 'error', id: request.id });
  } finally {
    running.delete(request.id);
  }
}

/** What a block answer looks like, around a throwaway chapter (for warm()). */
const warmUpItem = (content: string, checksum: string): ArchiveItem => ({
  title: 'Warm-up',
  chapter_label: 'Warm-up',
  format: 'book',
  source: 'warm-up',
  book_id: 'warm-up',
  chapter_href: 'warm-up.xhtml',
  chapter: 'warm-up.xhtml',
  is_system_book: false,
  as_sample: false,
  is_public: false,
  allow_scripts: false,
  next_chapter_uri: null,
  previous_chapter_uri: null,
  top_percentage: 0,
  resources: [
    { uri: 'warm-up.xhtml', content, content_type: 'text/html', label: 'Warm-up', encoding: 'crypt64', checksum, item_order: 0, as_sample: false, is_public: false, stylesheets: [], allow_scripts: false },
  ],
  error: null,
  url: null,
});

/**
 * A throwaway chapter's whole way through here, cipher and schema check, a dozen times each: V8 optimises a function
 * after enough calls, not after one long one, and a chapter's checksum and key derivation are short calls (two
 * passes left them interpreted: a first real chapter then took 5-10 ms instead of 1-2). Some 30 ms, once; the
 * schema check's part once its chunk is in.
 */
let warmed = false;
/** The throwaway chapter the cipher was warmed with, once it was. */
let cipherWarmedWith: { content: string; checksum: string } | null = null;

/** The cipher's part of warm(): its code optimised before a first real chapter (also as the worker starts, below). */
function warmCipher(): { content: string; checksum: string } {
  if (cipherWarmedWith) return cipherWarmedWith;
  const html = `<p>${'Call me Ishmael. Some years ago, never mind how long precisely. '.repeat(300)}</p>`;
  const { content, checksum } = encryptChapter(html, 'lectern-warm-up-key', 'warm-up', 'warm-up.xhtml');
  for (let i = 0; i < 12; i++) decrypt(content, checksum, 'lectern-warm-up-key', 'warm-up', `warm-up-${i % 3}.xhtml`);
  return (cipherWarmedWith = { content, checksum });
}

function warm() {
  if (warmed) return;
  warmed = true;
  const { content, checksum } = warmCipher();
  // (the schema check once its chunk is in: the same module the client loads, so the same chunk)
  void loadSchemas()
    .then(({ blockResponseSchema }) => {
      for (let i = 0; i < 12; i++) blockResponseSchema.parse([warmUpItem(content, checksum)]);
    })
    .catch(() => undefined);
}

/** A request has come in: the worker is no longer idle at its start (the cipher's warm-up below waits for none). */
let asked = false;

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const m = event.data;
  asked = true;
  switch (m.kind) {
    case 'decrypt':
      post({ kind: 'decrypt', id: m.id, result: decrypt(m.content, m.checksum, m.key, m.bookId, m.chapterHref) });
      return;
    case 'block':
      void block(m);
      return;
    case 'abort':
      running.get(m.id)?.abort();
      return;
    case 'warm':
      warm();
      return;
  }
};

post({ kind: 'ready' });

/**
 * The cipher warmed while the worker waits, at its start, for its first request: on a reader address the page
 * starts it beside its chapter request, and it was ready 100-340 ms before the answer came in. A first decryption in
 * code not yet optimised took 76-194 ms of an 800,000-character chapter, 8-44 ms once warmed (docs/performance.md
 * "The cipher warmed while the worker waits"). Not when a request is already waiting: it goes first.
 */
setTimeout(() => {
  if (!asked) warmCipher();
}, 0);
