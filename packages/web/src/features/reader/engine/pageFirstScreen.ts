/**
 * A long chapter's first screen painted by the page itself (docs/decisions.md "A long chapter's first screen painted
 * by the page"): the reader address's inline script (server routes/web.ts EARLY_BLOCK_SCRIPT) hands the chapter
 * worker what the reader would read from this browser (its settings, its places in the book, the address's hash,
 * the window's width); the worker, once it has decrypted and sliced the chapter, builds the document the reader's
 * ChapterView would write for the slice holding the reader's place (the same buildChapterDocument: the chapter's CSP
 * `<meta>`, the book's stylesheets, the reader's type, measure and theme) and posts it; the page's script writes it
 * into a frame of its own (the reader's sandbox) over the reader's stage, where it stays until the reader's own first
 * screen is painted (releasePageFrame). Only where the reader's first screen would be that document at that place:
 * scroll mode, the reader's bars shown, no dimming, a reflowable chapter read in the one frame; anything else
 * (paged, a target anchor, a scripted title) is left to the reader, as before.
 */
import { clampPercentage, PAGE_FRAME_ID, PAGE_PLACE_ATTR, paths, type ArchiveItem, type Locator } from '@lectern/core';
import { pageScriptState } from '../../../api/earlyBlock.ts';
import { prefsForBook } from '../bookFlow.ts';
import { PositionStore, resolveInitialPosition } from '../../../shared/reading/position.ts';
import { SEEN_KEY } from '../../../shared/reading/serverPositionSeed.ts';
import { buildChapterDocument } from './chapterDocument.ts';
import { chapterShell, escapeText, firstSlice, nearestOccurrence, SLICE_CONTAINER_ATTR, SLICE_MIN_CHARS, type SlicedChapter } from './chapterSlices.ts';
import { BRIGHTNESS_FULL, CHROME_KEY, loadPreferences, PAGINATION_CHOSEN_KEY } from './preferences.ts';

/** What the page's script hands the worker for the first screen: what the reader reads in the browser, as text. */
export interface PageView {
  /** the chapter frame's width in CSS px (the window's: the reader's stage spans it) */
  width: number;
  /** location.hash */
  hash: string;
  /** document.cookie (the reader's preferences cookie is in it) */
  cookie: string;
  /** local storage's values under the keys the page's script reads (PAGE_VIEW_KEYS), null where absent */
  storage: Record<string, string | null>;
  /** the profile's user_uuid and the account's position of the book, from the page's boot data */
  user: string | null;
  position: unknown;
}

/** The first screen for the page: the document, and where in it to scroll (a marked element, or a share). */
export interface PageFirstScreen {
  kind: 'first-screen';
  document: string;
  /** the share of the document's scroll height to scroll to (0-100) when no place is marked */
  percentage: number;
  /**
   * Where the document's first piece ends: what a screen needs (the head, the text up to the place and a few screens
   * after it), which the page writes and shows first; the rest goes in after a yield, below the place, so no one task
   * parses the whole slice. The document's length when it is not cut (a share of the slice: its height is needed).
   */
  split: number;
}

/** The HTML after the place (or the body's start) in the first piece: a few screens of text at any width. */
const FIRST_PIECE_CHARS = 8_000;
/** The empty element where the reader's frame finds its range (the page's script scrolls it to the top). */
const PLACE_MARK = `<span ${PAGE_PLACE_ATTR}></span>`;

function parsed(text: string | null | undefined): Record<string, unknown> | null {
  try {
    const v: unknown = text ? JSON.parse(text) : null;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The stored place the reader will open the chapter at: this browser's, unless the account's (from the page) is
 * newer than what this browser has seen of it (as the reader has it once the server's answer is applied:
 * serverPositionSeed.ts applyServerPosition).
 */
function storedPlace(view: PageView, bookId: string, href: string): Locator | null | 'unknown' {
  const store = new PositionStore({ getItem: (k) => view.storage[k] ?? null, setItem: () => undefined, removeItem: () => undefined });
  const local = store.get(bookId, href);
  const p = (view.position as { position?: { updated_at?: unknown; locator?: Locator } | null } | null)?.position;
  if (!view.user || !p || typeof p.updated_at !== 'string' || p.locator?.href !== href || !Number.isFinite(p.locator.progression)) return local;
  const seen = parsed(view.storage[SEEN_KEY])?.[`${view.user}/${bookId}`];
  if (typeof seen === 'string' && Date.parse(p.updated_at) <= Date.parse(seen)) return local;
  // Newer than this browser saw. Where this browser has a place of its own in the book, the reader does not take the
  // page's position but asks the server again (serverPositionSeed.ts seedServerPosition): its answer is not known
  // here, so no first screen is painted that the reader might then move away from.
  if (store.latestHref(bookId)) return 'unknown';
  return { ...p.locator, progression: clampPercentage(p.locator.progression * 100) / 100 };
}

/**
 * What the reader's first screen of `item` in `view` would be made of, or null when it would not be a document the page
 * can paint (see the module comment): read before the chapter is decrypted, so the worker can say at once that no
 * first screen is coming (pageFirstScreenPossible).
 */
function firstScreenPlan(item: ArchiveItem, view: PageView) {
  const chapter = item.resources[0];
  if (!chapter || item.allow_scripts || chapter.allow_scripts) return null;
  const r = item.rendition;
  if (r && (r.layout === 'pre-paginated' || r.flow === 'scrolled-continuous' || r.page_spread === 'left' || r.page_spread === 'right')) return null;
  const chrome = parsed(view.storage[CHROME_KEY]);
  if (chrome?.masthead === false || chrome?.menu === false) return null;
  const storage = { getItem: (k: string) => view.storage[k] ?? null, setItem: () => undefined };
  const prefs = prefsForBook(loadPreferences({ storage, cookies: { get: () => view.cookie, set: () => undefined } }), r, view.storage[PAGINATION_CHOSEN_KEY] === '1');
  // (paged: the columns and the page to show are the controller's; dimmed: the reader's veil would come later)
  if (prefs.pagination !== 'scroll' || prefs.brightness < BRIGHTNESS_FULL) return null;
  const stored = storedPlace(view, item.book_id, item.chapter_href);
  if (stored === 'unknown') return null;
  const initial = resolveInitialPosition({ hash: view.hash, stored, topPercentage: item.top_percentage });
  if (initial.kind !== 'stored' && initial.kind !== 'percentage') return null;
  return { chapter, rendition: r, prefs, initial };
}

/**
 * Whether the page could paint a first screen of `item` in `view`, once it is decrypted: false when the reader's
 * first screen would not be such a document, or the chapter's ciphertext (`cipherChars` of base64) is too short to
 * hold a chapter that is written in slices (its UTF-8 is at least as long as its HTML).
 */
export function pageFirstScreenPossible(item: ArchiveItem, view: PageView, cipherChars: number): boolean {
  return Math.floor((cipherChars * 3) / 4) >= SLICE_MIN_CHARS && firstScreenPlan(item, view) !== null;
}

/**
 * The document of a long chapter's first screen as the reader would write it in `view`, or null when the reader's
 * first screen would not be that (see the module comment). `html`: the decrypted chapter, `sliced`: its slices.
 */
export function pageFirstScreen(item: ArchiveItem, html: string, sliced: SlicedChapter | null, view: PageView): PageFirstScreen | null {
  const plan = sliced ? firstScreenPlan(item, view) : null;
  if (!sliced || !plan) return null;
  const { chapter, rendition: r, prefs, initial } = plan;
  const start = firstSlice(html, sliced, initial);
  let shell = chapterShell(html, sliced, start.index);
  let percentage = start.position.kind === 'percentage' ? start.position.value : 0;
  if (initial.kind === 'stored') {
    // The words the reader's frame finds (frame/position.ts findLocator), marked where its range starts.
    const s = sliced.slices[start.index]!;
    const body = html.slice(s.start, s.end);
    const expected = initial.locator.progression * html.length - s.start;
    const nearest = (needle: string) => nearestOccurrence(body, needle, expected);
    const before = escapeText(initial.locator.text?.before ?? '');
    const highlight = escapeText(initial.locator.text?.highlight ?? '');
    // the words before and at the place, else (the words before run across elements, which the markup interrupts)
    // the words at it alone
    let best = nearest(before + highlight);
    if (best >= 0) best += before.length;
    else best = nearest(highlight);
    if (best < 0) return null; // not found: the reader goes by its share of the chapter, laid out whole; not guessed here
    // (chapterShell: the container's content starts after its mark, or where the reading root's does)
    const at = sliced.innerStart + (sliced.containerTagEnd < 0 ? 0 : SLICE_CONTAINER_ATTR.length + 1) + best;
    shell = `${shell.slice(0, at)}${PLACE_MARK}${shell.slice(at)}`;
    percentage = 0;
  }
  const document = buildChapterDocument({
    html: shell,
    label: item.chapter_label || chapter.label,
    stylesheets: chapter.stylesheets,
    // (the reader's: chapterSource.ts; the worker's origin is the page's)
    baseHref: new URL(paths.chapterApi(item.book_id, item.chapter_href), self.location.origin).href,
    root: item.root_attributes ?? null,
    alignXCenter: r?.align_x_center === true,
    prefs,
    layout: { pagination: 'scroll', pageWidth: view.width },
  });
  // (cut before a tag, after the place's mark, or the body's start when the chapter opens at its start)
  const from = initial.kind === 'stored' ? document.indexOf(PLACE_MARK) : percentage === 0 ? document.indexOf('<body') : -1;
  const cut = from < 0 ? -1 : document.indexOf('<', from + FIRST_PIECE_CHARS);
  return { kind: 'first-screen', document, percentage, split: cut < 0 ? document.length : cut };
}


/**
 * The reader's own first screen is painted (or the reader has gone): the page's frame, if there is one, is taken
 * away. From then on the reader's frame is what shows, at the same place.
 */
export function releasePageFrame(): void {
  if (typeof document === 'undefined') return;
  // (a first screen the worker posts after this is not painted: the page's script reads the flag)
  // (the app has usually taken the page's state away by now: pageScriptState still finds it)
  const early = pageScriptState();
  if (early) early.released = true;
  // (the page's resize listener holds the frame's document: taken off with it)
  early?.unfollow?.();
  if (early) early.unfollow = undefined;
  const frame = document.getElementById(PAGE_FRAME_ID);
  if (!frame) return;
  frame.remove();
  performance.mark('reader:page-frame-released');
}
