/**
 * A long chapter in slices (engine/chapterSlices.ts): where it is cut, which slice goes first, and that inserting
 * the slices one by one, in any order the filler takes, gives the document that writing it whole gives.
 */
import { describe, expect, it } from 'vitest';
import { chapterShell, firstSlice, primeSlices, SLICE_CONTAINER_ATTR, SliceFiller, sliceChapter, slicesOf } from '../src/features/reader/engine/chapterSlices.ts';

/** Paragraphs as the importer writes them (parse5: escaped text, double-quoted attributes), numbered. */
const paragraphs = (n: number, extra = '') =>
  Array.from({ length: n }, (_, i) => `<p id="p${i}" class="x">Paragraph ${i}: fish &amp; chips, a &lt;tag&gt; in text${extra}, <em>words</em>.</p>\n`).join('');

const parse = (html: string) => new DOMParser().parseFromString(`<!doctype html><html><body><div id="lectern-root">${html}</div></body></html>`, 'text/html');

/** Writes the shell with slice `index`, then inserts the rest as the reader does; the root's HTML at the end. */
function fillAll(html: string, index: number) {
  const sliced = sliceChapter(html, 500, 1000)!;
  const doc = parse(chapterShell(html, sliced, index));
  const container = SliceFiller.container(doc, 'lectern-root')!;
  const filler = new SliceFiller(doc, container, html, sliced, index);
  const order: boolean[] = [];
  while (!filler.done) {
    order.push(filler.nextIsBefore);
    filler.insertNext();
  }
  return { sliced, root: doc.getElementById('lectern-root')!, order, doc };
}

describe('sliceChapter', () => {
  it('writes a short chapter whole', () => {
    expect(sliceChapter(paragraphs(3), 500, 1000)).toBeNull();
  });

  it('cuts between whole elements, the slices together being the chapter', () => {
    const html = `<h1>Title</h1>\n${paragraphs(60)}`;
    const sliced = sliceChapter(html, 500, 1000)!;
    expect(sliced.slices.length).toBeGreaterThan(5);
    expect(sliced.containerTagEnd).toBe(-1);
    expect(sliced.slices.map((s) => html.slice(s.start, s.end)).join('')).toBe(html);
    for (const s of sliced.slices.slice(0, -1)) expect(html.slice(s.start, s.end)).toMatch(/<\/p>$/);
  });

  it('goes into the wrapper holding most of the chapter', () => {
    const html = `<h1>Title</h1>\n<section class="chapter" id="c"><div class="inner">\n${paragraphs(60)}</div></section>\n<p>After</p>`;
    const sliced = sliceChapter(html, 500, 1000)!;
    expect(html.slice(sliced.containerTagEnd - 18, sliced.containerTagEnd + 1)).toBe('<div class="inner">');
    const shell = chapterShell(html, sliced, 0);
    expect(shell).toContain(`<div class="inner" ${SLICE_CONTAINER_ATTR}>`);
    expect(shell).toContain('<p>After</p>');
  });

  it('does not cut inside raw text, comments or attribute values that hold markup', () => {
    const tricky = `<style>p > em { color: red } </p></style>\n<!-- </p> <div> -->\n<p title="a > b &quot;c&quot; </p>">quoted</p>\n<svg><path d="M0 0"/><circle r="1"/></svg>\n<img src="a.png" alt="x">`;
    const html = paragraphs(20) + tricky + paragraphs(20, ' more');
    const { root } = fillAll(html, 0);
    expect(root.innerHTML).toBe(parse(html).getElementById('lectern-root')!.innerHTML);
  });

  it('writes markup it does not take for balanced whole', () => {
    expect(sliceChapter(`${paragraphs(60)}<div><p>open`, 500, 1000)).toBeNull();
    expect(sliceChapter(`${paragraphs(60)}</section>`, 500, 1000)).toBeNull();
  });
});

describe('SliceFiller', () => {
  const html = `<h1>Title</h1>\n<section class="chapter"><table><tbody><tr><td>cell</td></tr></tbody></table>\n${paragraphs(80)}</section>`;
  const whole = parse(html).getElementById('lectern-root')!.innerHTML;

  it('gives the whole chapter, whichever slice went first', () => {
    const n = sliceChapter(html, 500, 1000)!.slices.length;
    for (const first of [0, 1, Math.floor(n / 2), n - 1]) {
      const { root } = fillAll(html, first);
      expect(root.innerHTML).toBe(whole);
    }
  });

  it('fills after the first slice in order, then before it, nearest first', () => {
    const n = sliceChapter(html, 500, 1000)!.slices.length;
    const first = Math.floor(n / 2);
    const { order } = fillAll(html, first);
    expect(order).toEqual([...Array.from({ length: n - 1 - first }, () => false), ...Array.from({ length: first }, () => true)]);
  });
});

describe('firstSlice', () => {
  const html = `<h1>Title</h1>\n${paragraphs(80)}`;
  const sliced = sliceChapter(html, 500, 1000)!;
  const holding = (needle: string) => sliced.slices.findIndex((s) => html.slice(s.start, s.end).includes(needle));

  it('takes the slice holding an anchor, the last one for the end, the first for the top', () => {
    expect(firstSlice(html, sliced, { kind: 'anchor', id: 'p57' }).index).toBe(holding('id="p57"'));
    expect(firstSlice(html, sliced, { kind: 'anchor', id: 'nowhere' }).index).toBe(0);
    expect(firstSlice(html, sliced, { kind: 'end' }).index).toBe(sliced.slices.length - 1);
    expect(firstSlice(html, sliced, { kind: 'percentage', value: 0 })).toEqual({ index: 0, position: { kind: 'percentage', value: 0 } });
  });

  it('takes the slice holding a stored position by its words (escaped as in the markup), its progression made the slice\'s', () => {
    const locator = { href: 'c.xhtml', progression: 0.7, text: { before: 'Paragraph 61: fish & chips, a <t', highlight: 'ag> in text, ', after: '' } };
    const { index, position } = firstSlice(html, sliced, { kind: 'stored', locator });
    expect(index).toBe(holding('Paragraph 61:'));
    expect(position.kind).toBe('stored');
    const local = (position as { locator: { progression: number } }).locator.progression;
    expect(local).toBeGreaterThanOrEqual(0);
    expect(local).toBeLessThanOrEqual(1);
    // without words, a Locator is its progression (0 to 1) of the chapter, as a percentage is
    const half = firstSlice(html, sliced, { kind: 'stored', locator: { href: 'c.xhtml', progression: 0.5 } });
    const byPercentage = firstSlice(html, sliced, { kind: 'percentage', value: 50 });
    expect(half.index).toBe(byPercentage.index);
    expect((half.position as { locator: { progression: number } }).locator.progression * 100).toBeCloseTo((byPercentage.position as { value: number }).value, 6);
  });

  it('takes the slice at a percentage of the chapter, and the place within it', () => {
    const { index, position } = firstSlice(html, sliced, { kind: 'percentage', value: 50 });
    const s = sliced.slices[index]!;
    expect(s.start).toBeLessThanOrEqual(html.length / 2);
    expect(s.end).toBeGreaterThan(html.length / 2);
    const local = (position as { value: number }).value;
    expect(Math.abs(s.start + (local / 100) * (s.end - s.start) - html.length / 2)).toBeLessThan(1);
  });
});

/** The slicing the chapter worker worked out, taken instead of scanning the chapter again (primeSlices/slicesOf). */
describe('slicesOf', () => {
  const html = Array.from({ length: 400 }, (_, i) => `<p id="p${i}">Paragraph ${i} of a chapter long enough to be cut into slices.</p>\n`).join('').repeat(20);

  it('takes the slicing given for the same chapter, and works it out for any other', () => {
    const worked = sliceChapter(html);
    expect(worked).not.toBeNull();
    const given = { ...worked!, slices: worked!.slices.slice() };
    primeSlices(html, given);
    expect(slicesOf(html)).toBe(given);
    // a copy with equal text is the same chapter
    expect(slicesOf(html.slice(0, 10) + html.slice(10))).toBe(given);
    const other = html.replace('Paragraph 0', 'Paragraph zero');
    expect(slicesOf(other)).toEqual(sliceChapter(other));
    expect(slicesOf(other)).not.toBe(given);
  });

  it('keeps a chapter written whole whole (the worker found nothing to cut)', () => {
    primeSlices(html, null);
    expect(slicesOf(html)).toBeNull();
  });
});
