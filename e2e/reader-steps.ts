/**
 * Steps of the reading-fidelity specs (fidelity.e2e.ts, vertical-lr.e2e.ts) that every writing mode and direction
 * goes through the same way: opening a chapter, looking into its frame, highlighting a selection, the search jump
 * and a footnote's pop-up. What each mode expects of them (which page, which edge) stays in the spec.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export interface ChapterInfo {
  full_path: string;
  web_url: string;
  label: string;
}

/** Opens a chapter and waits until the reader says it is on screen (its paint mark and its frame's title). */
export async function openChapter(page: Page, chapter: ChapterInfo): Promise<void> {
  await page.goto(chapter.web_url);
  await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
  await page.waitForFunction((label) => document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument?.title === label, chapter.label);
}

/** Runs `fn` in the app's window on the chapter frame's document (same-origin: the reader writes it). */
export const inFrame = <T, A>(page: Page, fn: (doc: Document, arg: A) => T | Promise<T>, arg: A): Promise<T> =>
  page.evaluate(
    async ({ source, arg }) => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!.contentDocument!;
      // eslint-disable-next-line no-new-func
      return (new Function('doc', 'arg', `return (${source})(doc, arg);`) as (d: Document, a: unknown) => T)(doc, arg);
    },
    { source: fn.toString(), arg },
  );

export interface Box {
  text: string;
  left: number;
  right: number;
  top: number;
}

/** Selects the first `length` characters of the element `id`'s first text node; where the selection is. */
export function selectStart(page: Page, id: string, length: number): Promise<Box> {
  return inFrame(
    page,
    (doc, arg: { id: string; length: number }) => {
      const text = doc.getElementById(arg.id)!.firstChild as Text;
      const range = doc.createRange();
      range.setStart(text, 0);
      range.setEnd(text, arg.length);
      doc.getSelection()!.removeAllRanges();
      doc.getSelection()!.addRange(range);
      const r = range.getBoundingClientRect();
      return { text: range.toString(), left: r.left, right: r.right, top: r.top };
    },
    { id, length },
  );
}

/** "Add Highlight" from the adder, which must show inside the screen; waits until the adder is gone. */
export async function highlightSelection(page: Page, viewport: { width: number }): Promise<void> {
  const adder = page.getByRole('toolbar', { name: 'Annotate the selection' });
  await adder.waitFor();
  const adderBox = (await adder.boundingBox())!;
  expect(adderBox.x).toBeGreaterThanOrEqual(0);
  expect(adderBox.x + adderBox.width).toBeLessThanOrEqual(viewport.width);
  await adder.getByRole('button', { name: 'Add Highlight' }).click();
  await expect.poll(() => adder.count()).toBe(0);
}

/** Where the reader draws the highlight of exactly `text` (CSS custom highlights), or null while it is not drawn. */
export async function drawnHighlight(page: Page, text: string): Promise<Box | null> {
  const drawn = await inFrame(
    page,
    (doc) => {
      const set = (doc.defaultView as unknown as { CSS: { highlights: Map<string, Set<Range>> } }).CSS.highlights.get('lectern-highlight');
      return (set ? Array.from(set) : []).map((range) => {
        const r = range.getBoundingClientRect();
        return { text: range.toString(), left: r.left, right: r.right, top: r.top };
      });
    },
    null,
  );
  return drawn.find((d) => d.text === text) ?? null;
}

/**
 * Searches the book for `query` from the reader's panel and follows the first result; `screenshot`: a file for a
 * picture of the results, taken once the panel has slid in.
 */
export async function searchAndFollow(page: Page, query: string, screenshot?: string): Promise<void> {
  await page.getByRole('button', { name: 'Search this book' }).click();
  const field = page.getByRole('searchbox', { name: 'Search this book' });
  await field.fill(query);
  await field.press('Enter');
  const first = page.locator('.reader-search__result').first();
  await first.waitFor();
  if (screenshot) {
    await page.waitForFunction(() => document.querySelector('.reader-search')!.getAnimations().length === 0);
    await page.screenshot({ path: screenshot });
  }
  await first.getByRole('link').click();
}

/** The search hit the jump made current: its text and box, and the frame's height; null when there is none. */
export function currentSearchHit(page: Page) {
  return inFrame(
    page,
    (doc) => {
      const mark = doc.querySelector('mark.lectern-search-hit--current');
      const r = mark?.getBoundingClientRect();
      return r ? { text: mark!.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: doc.documentElement.clientHeight } : null;
    },
    null,
  );
}

/** Follows the note reference `refId` in the chapter; the pop-up, once it shows. */
export async function openNote(page: Page, refId: string) {
  const frame = page.frameLocator('iframe.chapter-view__frame');
  const note = frame.locator('.lectern-note');
  await frame.locator(`#${refId}`).click();
  await expect.poll(() => note.count()).toBe(1);
  return note;
}

/** The reader's footer: "Page 2 of 9", or a percentage in scroll mode. */
export const footerText = (page: Page) => page.locator('.reader-footer__text').textContent();

/**
 * The place is kept: two font sizes larger (more pages) and back (as many pages as `count` again), then the window
 * `smaller` and back to `viewport`; the paragraph `held` stays on the page all the while. `inView`: the paragraphs
 * on screen and whether the view is on a page boundary.
 */
export async function keepsPlace(
  page: Page,
  place: {
    held: string;
    count: number;
    viewport: { width: number; height: number };
    smaller: { width: number; height: number };
    inView: () => Promise<{ ids: string[]; aligned: boolean }>;
  },
): Promise<void> {
  const { held, count, viewport, smaller, inView } = place;
  await page.getByRole('button', { name: 'Display settings' }).click();
  await page.getByRole('button', { name: 'Increase font size' }).click();
  await page.getByRole('button', { name: 'Increase font size' }).click();
  await expect.poll(async () => Number(/of (\d+)$/.exec((await footerText(page)) ?? '')?.[1])).toBeGreaterThan(count);
  expect((await inView()).ids).toContain(held);
  await page.getByRole('button', { name: 'Decrease font size' }).click();
  await page.getByRole('button', { name: 'Decrease font size' }).click();
  await expect.poll(() => footerText(page)).toMatch(new RegExp(`of ${count}$`));
  await page.keyboard.press('Escape');
  expect((await inView()).ids).toContain(held);
  for (const size of [smaller, viewport]) {
    await page.setViewportSize(size);
    await expect.poll(async () => (await inView()).aligned).toBe(true);
    await expect.poll(async () => (await inView()).ids).toContain(held);
  }
}
