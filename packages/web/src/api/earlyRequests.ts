/**
 * The reader's two first requests as the page starts (features/reader/engine/earlyChapter.ts): the chapter's
 * POST /nest/epub/block/ and GET /nest/key/, sent before the app (and its client, its schemas) has loaded. They
 * hand back the answer's text unchecked; the chapter worker checks it with the same schemas the client uses
 * (chapter.worker.ts). An answer that is not a success is null: the reader then asks again through the client,
 * which reports it as every other failure. Small on purpose: this module is in the page's first script.
 */
import { COOKIES, CSRF_HEADER } from '@lectern/core';
import { readCookie } from './cookies.ts';
import { BLOCK_PATH, blockBody, KEY_PATH, type BlockParams } from './blockRequest.ts';

async function textOf(response: Promise<Response>): Promise<string | null> {
  try {
    const r = await response;
    return r.ok ? await r.text() : null;
  } catch {
    return null;
  }
}

/** POST /nest/epub/block/ as the client sends it (JSON body, CSRF header, cookies); the answer's text, or null. */
export function sendBlockRequest(p: BlockParams): Promise<string | null> {
  const csrf = readCookie(COOKIES.csrf);
  if (!csrf) return Promise.resolve(null);
  return textOf(
    fetch(BLOCK_PATH, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', [CSRF_HEADER]: csrf },
      body: JSON.stringify(blockBody(p)),
    }),
  );
}

/** GET /nest/key/; the answer's text, or null. */
export function sendKeyRequest(): Promise<string | null> {
  return textOf(fetch(KEY_PATH, { credentials: 'same-origin', headers: { Accept: 'application/json' } }));
}
