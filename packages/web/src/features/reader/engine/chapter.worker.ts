/// <reference lib="webworker" />
/**
 * The chapter worker (DESIGN.md "Reader engine": decryption must never block the page beyond a frame). It takes
 * a chapter's whole way in off the main thread: the POST /nest/epub/block/ request through the one typed client
 * (its own instance, with the page's CSRF token, since a worker cannot read cookies), the JSON and schema check, and
 * the crypt64 decryption with its checksum. So the answer is not left waiting while the page is busy with the click
 * that asked for it, and a long chapter never blocks scrolling.
 */
import { blockResponseSchema, decryptChapter, encryptChapter, paths, type ArchiveItem, type DecryptChapterResult } from '@lectern/core';
import { ApiError, createApiClient } from '../../../api/client.ts';
import { getBlockWith, prefetchBookFiles } from '../../../api/reader.ts';
import { sliceChapter, type SlicedChapter } from './chapterSlices.ts';
import { pageFirstScreen, type PageView } from './pageFirstScreen.ts';
import { responseOf } from '../../../api/earlyBlock.ts';
import type { WorkerRequest, WorkerResponse } from './chapterWorker.ts';

const post = (message: WorkerResponse) => (self as unknown as Worker).postMessage(message);
const running = new Map<number, AbortController>();

function decrypt(content: string, checksum: string, key: string, bookId: string, chapterHref: string): DecryptChapterResult {
  try {
    return decryptChapter(content, checksum, key, bookId, chapterHref);
  } catch {
    return { ok: false, reason: 'corrupt' };
  }
}

/** The chapter of a block answer decrypted with `key` (and, when long, cut into slices), posted to the page. */
function finish(id: number, items: ArchiveItem[], key: string | null, view?: PageView) {
  const chapter = items[0]?.resources[0];
  let decrypted: DecryptChapterResult | null = null;
  let sliced: SlicedChapter | null = null;
  // Its stylesheets first, on their way while the chapter is decrypted and the page renders the reader: the
  // document's first layout waits for them (ChapterView's stylesheetsSettled); asked for once it was written, they
  // came tens to hundreds of ms late, and after the decryption still some tens.
  if (items[0] && chapter && chapter.stylesheets.length > 0) {
    const base = new URL(paths.chapterApi(items[0].book_id, items[0].chapter_href), self.location.origin);
    prefetchBookFiles(chapter.stylesheets.map((href) => new URL(href, base).href));
  }
  if (key && items[0] && chapter?.encoding === 'crypt64' && chapter.checksum) {
    decrypted = decrypt(chapter.content, chapter.checksum, key, items[0].book_id, items[0].chapter_href);
    performance.mark('reader:worker-decrypted');
    // The page needs the ciphertext only to try another key; a decrypted chapter travels once, as its HTML.
    if (decrypted.ok) {
      chapter.content = '';
      // A long chapter's slices worked out here: a scan of all its markup, tens of milliseconds the page is spared.
      sliced = sliceChapter(decrypted.html);
      // The page's own first screen (pageFirstScreen.ts), posted before the whole chapter's answer: the page paints it
      // while the app is still starting. A failure here costs only that head start.
      if (view && items[0]) {
        try {
          const first = pageFirstScreen(items[0], decrypted.html, sliced, view);
          if (first) {
            performance.mark('reader:worker-first-screen');
            post(first);
          }
        } catch {
          /* the reader shows it itself */
        }
      }
    }
  }
  post({ kind: 'block', id, items, decrypted, sliced });
}

async function block(request: Extract<WorkerRequest, { kind: 'block' }>) {
  const abort = new AbortController();
  running.set(request.id, abort);
  try {
    const client = createApiClient({ csrfToken: () => request.csrf, storage: null });
    // The page's own early request's answer, when the page sent one (api/earlyBlock.ts): read, not asked again.
    const asked = getBlockWith(client, request.params, abort.signal, request.answer ? Promise.resolve(responseOf(request.answer)) : undefined);
    // The cipher compiled and optimised while the answer is on its way, not on the chapter (once per worker). An
    // answer already here (the page's own request) is not kept waiting for it: a long chapter's decryption is
    // optimised as it runs, and the page warms the worker once the chapter is on screen (warmChapterWorkerJit).
    if (!request.answer) warm();
    const items = await asked;
    performance.mark('reader:worker-block-parsed');
    finish(request.id, items, request.key, request.view);
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
 * A throwaway chapter's whole way through here, schema check and cipher, a dozen times: V8 optimises a function
 * after enough calls, not after one long one, and a chapter's checksum and key derivation are short calls (two
 * passes left them interpreted: a first real chapter then took 5-10 ms instead of 1-2). Some 30 ms, once.
 */
let warmed = false;

function warm() {
  if (warmed) return;
  warmed = true;
  const html = `<p>${'Call me Ishmael. Some years ago, never mind how long precisely. '.repeat(300)}</p>`;
  const { content, checksum } = encryptChapter(html, 'lectern-warm-up-key', 'warm-up', 'warm-up.xhtml');
  for (let i = 0; i < 12; i++) {
    const [item] = blockResponseSchema.parse([warmUpItem(content, checksum)]);
    decrypt(item!.resources[0]!.content, checksum, 'lectern-warm-up-key', 'warm-up', `warm-up-${i % 3}.xhtml`);
  }
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const m = event.data;
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
