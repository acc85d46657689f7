/**
 * Scripted titles (docs/decisions.md "Scripted titles on their own origin"): a title an operator allowed to run scripts
 * is read in a frame on a second origin (SCRIPTED_ORIGIN) that has none of the app's cookies, never on the app's (its
 * one cookie binds a frame's address to the browser that opened it first: docs/decisions.md "A scripted title's frame
 * address is bound to the browser that opened it"). The app asks for the frame's address; the frame's page and the
 * reader speak only through postMessage, in the messages below, each side checking the other's origin. The address call
 * is paths.scriptedFrame.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const scriptedFrameSchema = lazySchema(() => z.object({
  /** the chapter as a page of the scripted origin, with a capability token good for SCRIPTED_FRAME_TTL_MS */
  url: z.string(),
  /** the scripted origin (messages from the frame must come from it) */
  origin: z.string(),
}));
export type ScriptedFrame = z.infer<typeof scriptedFrameSchema>;

/** How long a frame's address (and the book files it loads) stays good, in the browser it was bound to. */
export const SCRIPTED_FRAME_TTL_MS = 4 * 60 * 60 * 1000;

/** The name navigator.epubReadingSystem gives (EPUB Reading Systems 3.3 §4). */
export const READING_SYSTEM_NAME = 'Lectern';

/**
 * The tallest a scripted page may make its frame, in CSS px, when the reader sizes the frame to its page (a book read as
 * one scroll: docs/decisions.md "A scripted book read as one scroll"). The page says its own height, and a book's
 * script can say anything: a height past this is refused, the frame keeping its last one. A million px is some
 * 2,500 screens of a phone, far past any chapter's text.
 */
export const SCRIPTED_FRAME_MAX_HEIGHT = 1_000_000;

/** From the frame's page to the reader. */
export const scriptedFrameMessageSchema = lazySchema(() => z.discriminatedUnion('lectern', [
  /** the page is loaded (its `load` event) */
  z.object({ lectern: z.literal('ready') }),
  /** the page's height, CSS px, down to the end of its text: on its first layout and each time it changes */
  z.object({ lectern: z.literal('height'), height: z.number().min(0).max(SCRIPTED_FRAME_MAX_HEIGHT) }),
  /** the reader scrolled the page: how far, 0 to 1 */
  z.object({ lectern: z.literal('progress'), progression: z.number().min(0).max(1) }),
  /** a link to another chapter of the book (its path in the book, and a fragment without '#') */
  z.object({ lectern: z.literal('navigate'), path: z.string().max(1000), fragment: z.string().max(200) }),
  /** a link out of the book: the app asks before leaving */
  z.object({ lectern: z.literal('external'), url: z.string().max(2000) }),
]));
export type ScriptedFrameMessage = z.infer<typeof scriptedFrameMessageSchema>;

/** From the reader to the frame's page. */
export type ScriptedReaderMessage =
  | { lectern: 'goto'; progression: number }
  | { lectern: 'look'; background: string; color: string; fontScale: number };

/**
 * A reader's answer for one scripted title (docs/decisions.md "Scripted publications"):
 * `allowed` — its scripts run in the frame; `declined` — it is read as every other title, its scripts not run;
 * null — not asked yet (or the answer was withdrawn): the reader is asked before anything runs.
 */
export const scriptsConsentSchema = lazySchema(() => z.object({
  book_id: z.string(),
  decision: z.enum(['allowed', 'declined']).nullable(),
}));
export type ScriptsConsent = z.infer<typeof scriptsConsentSchema>;

/** PUT paths.scriptsConsent: the reader's answer. (DELETE withdraws it: the reader is asked again.) */
export const scriptsConsentInputSchema = lazySchema(() => z
  .object({ allow: z.boolean({ message: 'allow must be true or false' }) })
  .strict());
export type ScriptsConsentInput = z.infer<typeof scriptsConsentInputSchema>;
