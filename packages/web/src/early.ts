/**
 * The first script of every page, before the app (index.html): on a reader address, the chapter's request and its
 * worker start now rather than once the app has started (features/reader/engine/earlyChapter.ts). A few hundred
 * bytes; on any other address it does nothing.
 */
import { startEarlyChapter } from './features/reader/engine/earlyChapter.ts';

startEarlyChapter();
