/**
 * A reader address's page asked for its chapter itself (server routes/web.ts EARLY_BLOCK_SCRIPT, api/earlyBlock.ts)
 * and brought the reader's key: as the app starts, the key is kept (as GET /nest/key/'s answer would be), the chapter
 * worker starts and warms its cipher, and the chapter's answer is handed to it the moment it is here, while the
 * app's own start goes on. The reader then finds its chapter decrypted and cut into slices when it asks
 * (chapterWorker.ts loadBlock), instead of fetching, then asking for the key, then decrypting, one after the other
 * once it has rendered. The entry imports only this, the worker's address and the key's storage: chapterWorker.ts
 * (the client's schemas, the cipher on the page's side) comes by a dynamic import started here.
 */
import { EARLY_BLOCK_GLOBAL } from '@lectern/core';
import type { BootData } from '../../../api/boot.ts';
import { storedKey, storeKey } from './keyStorage.ts';
import { pageWorker, startChapterWorker } from './workerStart.ts';

export function startReaderFromPage(boot: BootData | null): void {
  const reader = boot?.reader;
  const userId = boot?.profile?.user_uuid;
  if (!reader || !userId || typeof window === 'undefined' || !(EARLY_BLOCK_GLOBAL in window)) return;
  if (typeof reader.key === 'string' && reader.key) storeKey(userId, reader.key);
  // (the page's own worker already has the answer to work on: a warm-up now would only hold it up)
  const fromPage = pageWorker() !== null;
  const worker = startChapterWorker();
  if (!fromPage) worker?.postMessage({ kind: 'warm' });
  void import('./chapterWorker.ts').then(
    (m) => m.adoptEarlyBlock(storedKey(userId)),
    () => undefined, // its chunk did not load here: the reader takes the page's answer itself when it asks
  );
}
