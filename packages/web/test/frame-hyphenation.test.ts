/**
 * Hyphenation supplied in the frame where the browser has none (engine/hyphenation.ts): U+00AD inserted into the
 * words of text at `hyphens: auto` with the `hyphen` library's real English patterns, and everything that reads the
 * text (annotations' quotes and selectors, search marks, a position's words, copy) seeing the text without them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anchorAll, describeRange } from '../src/features/reader/annotations/anchoring.ts';
import { locatorAt } from '../src/features/reader/engine/frame/position.ts';
import { patternsFor, SOFT_HYPHEN, suppliesHyphens, supplyHyphenation } from '../src/features/reader/engine/hyphenation.ts';
import { indexText, markWords, SEARCH_MARK_CLASS } from '../src/features/reader/engine/textMarks.ts';
import { chapterFrame, removeFrames } from './frame-fixture.ts';

afterEach(removeFrames);

const PROSE = '<p>Internationalization characteristically complicates understanding.</p><p class="none">Uncharacteristically unhyphenated.</p><pre>preformatted-characteristically</pre>';
const CSS = 'body { hyphens: auto; } .none { hyphens: manual; }';
// the slices run at once, as an idle period with time left would
const now = { idle: (work: (d: { timeRemaining(): number }) => void) => (queueMicrotask(() => work({ timeRemaining: () => 50 })), 1), cancelIdle: () => {} };

/** A range over the first occurrence of `words` (the characters as the book has them) in root's text. */
function rangeOver(root: Element, words: string) {
  const index = indexText(root);
  const at = index.text.indexOf(words);
  expect(at).toBeGreaterThanOrEqual(0);
  return anchorAll(root, [{ id: 'x', quote: words, selectors: [{ type: 'TextPositionSelector' as const, start: at, end: at + words.length }] }]).anchored[0]!.range;
}

describe('hyphenation supplied in the frame', () => {
  it('knows which languages it has patterns for', () => {
    expect(patternsFor('en')).toBe('en-us');
    expect(patternsFor('en-GB')).toBe('en-gb');
    expect(patternsFor('de-AT')).toBe('de-1996');
    expect(patternsFor('zh')).toBeNull();
    expect(patternsFor('xx')).toBeNull();
  });

  it('inserts soft hyphens into text at hyphens: auto only, and nowhere the browser hyphenates itself', async () => {
    const c = chapterFrame(PROSE, CSS);
    expect(await supplyHyphenation(c.doc, c.root, 'en', true, now).done).toBe(false);
    expect(c.root.textContent).not.toContain(SOFT_HYPHEN);

    expect(await supplyHyphenation(c.doc, c.root, 'en', false, now).done).toBe(true);
    const [first, second] = Array.from(c.root.querySelectorAll('p'));
    expect(first!.textContent).toContain(`In${SOFT_HYPHEN}ter${SOFT_HYPHEN}na${SOFT_HYPHEN}tion${SOFT_HYPHEN}al`);
    expect(second!.textContent).not.toContain(SOFT_HYPHEN);
    expect(c.root.querySelector('pre')!.textContent).not.toContain(SOFT_HYPHEN);
    expect(suppliesHyphens(c.doc)).toBe(true);
  });

  it("leaves a chapter with the book's own soft hyphens as the book hyphenated it", async () => {
    const c = chapterFrame(`<p>Donau${SOFT_HYPHEN}dampf${SOFT_HYPHEN}schiff and internationalization.</p>`, CSS);
    expect(await supplyHyphenation(c.doc, c.root, 'en', false, now).done).toBe(false);
    expect(suppliesHyphens(c.doc)).toBe(false);
    // the book's own are in the text that annotations read, as they always were
    expect(indexText(c.root).text).toContain(SOFT_HYPHEN);
  });

  it('a highlight made on hyphenated text has the quote and selectors of one made on plain text', async () => {
    const words = 'characteristically complicates understanding';
    const plain = chapterFrame(PROSE, CSS);
    const before = describeRange(plain.root, rangeOver(plain.root, words))!;

    const c = chapterFrame(PROSE, CSS);
    await supplyHyphenation(c.doc, c.root, 'en', false, now).done;
    // selected in the page: from inside the first word to inside the last, over the inserted hyphens
    const p = c.root.querySelector('p')!.firstChild as Text;
    const range = c.doc.createRange();
    range.setStart(p, p.data.indexOf('char'));
    range.setEnd(p, p.data.lastIndexOf('ing') + 3);
    expect(range.toString()).toContain(SOFT_HYPHEN);
    const after = describeRange(c.root, range)!;
    expect(after).toEqual(before);
    expect(after.quote).toBe(words);

    // and an annotation made before, on plain text, anchors on the hyphenated text over the same words
    const { anchored, orphans } = anchorAll(c.root, [{ id: 'a', quote: before.quote, selectors: before.selectors }]);
    expect(orphans).toEqual([]);
    expect(anchored[0]!.range.toString().replaceAll(SOFT_HYPHEN, '')).toBe(words);
  });

  it('an annotation drawn before the hyphens go in stays on its words', async () => {
    const c = chapterFrame(PROSE, CSS);
    const range = rangeOver(c.root, 'complicates');
    await supplyHyphenation(c.doc, c.root, 'en', false, now).done;
    // a live range: insertData moved its ends with the text
    expect(range.toString()).toBe(`com${SOFT_HYPHEN}pli${SOFT_HYPHEN}cates`);
    expect(describeRange(c.root, range)!.quote).toBe('complicates');
  });

  it('search marks and a position read the text without the inserted hyphens', async () => {
    const c = chapterFrame(PROSE, CSS);
    await supplyHyphenation(c.doc, c.root, 'en', false, now).done;
    const text = c.root.querySelector('p')!.lastChild as Text;
    const at = c.doc.createRange();
    at.setStart(text, text.data.indexOf('stand'));
    const loc = locatorAt('ch1.xhtml', 0.5, at, () => false);
    expect(loc.text!.highlight).toBe('standing.');
    expect(loc.text!.before).not.toContain(SOFT_HYPHEN);

    const marks = markWords(c.root, ['understanding', 'internationalization']);
    expect(marks.map((m) => m.textContent.replaceAll(SOFT_HYPHEN, ''))).toEqual(['Internationalization', 'understanding']);
    // the marks hold the whole word, its hyphens inside
    expect(marks[1]!.textContent).toContain(SOFT_HYPHEN);
    expect(c.root.querySelectorAll(`.${SEARCH_MARK_CLASS}`)).toHaveLength(2);
  });

  it('copy leaves the inserted hyphens out', async () => {
    const c = chapterFrame(PROSE, CSS);
    await supplyHyphenation(c.doc, c.root, 'en', false, now).done;
    c.doc.getSelection()!.selectAllChildren(c.root.querySelector('p')!);
    const data = new Map<string, string>();
    const event = new c.win.Event('copy', { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(event, 'clipboardData', { value: { setData: (type: string, value: string) => data.set(type, value) } });
    c.root.querySelector('p')!.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    expect(data.get('text/plain')).toBe('Internationalization characteristically complicates understanding.');
    expect(data.get('text/html')).not.toContain(SOFT_HYPHEN);
  });
});
