/**
 * The parts useChapterAnnotations composes (annotations/): the selection watcher (selection.ts), the batched drawing
 * (drawing.ts) and the store's drafts and notices (store.ts), each on a jsdom document with fake clocks.
 */
import { ANNOTATION_MESSAGES, ANNOTATION_TIMING, ANNOTATION_TYPE_NOTE, type Annotation } from '@lectern/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/client.ts';
import { describeRange } from '../src/features/reader/annotations/anchoring.ts';
import { drawAnnotations, redrawAnnotation } from '../src/features/reader/annotations/drawing.ts';
import { Highlighter } from '../src/features/reader/annotations/highlighter.ts';
import { watchSelection } from '../src/features/reader/annotations/selection.ts';
import { changeDraft, failureNotice, newDraft } from '../src/features/reader/annotations/store.ts';
import type { AnnotationSurface } from '../src/features/reader/annotations/surface.ts';

const WORDS = Array.from({ length: 30 }, (_, i) => `word${i}`);

let doc: Document;
let root: HTMLElement;
beforeEach(() => {
  vi.useFakeTimers();
  // a document with a window (the highlighter's), as a frame's is
  doc = document;
  document.body.innerHTML = `<div id="root"><p>${WORDS.join(' ')}</p><p>Mars again: the planet Mars.</p></div>`;
  root = document.getElementById('root')!;
  Range.prototype.getClientRects = function () {
    return [{ left: 10, top: 20, right: 60, bottom: 36, width: 50, height: 16 }] as unknown as DOMRectList;
  };
  Range.prototype.getBoundingClientRect = function () {
    return { left: 10, top: 20, right: 60, bottom: 36, width: 50, height: 16 } as DOMRect;
  };
});
afterEach(() => {
  vi.useRealTimers();
  document.getSelection()?.removeAllRanges();
  document.body.innerHTML = '';
});

function rangeOver(words: string): Range {
  const text = root.querySelector('p')!.firstChild as Text;
  const at = text.data.indexOf(words);
  const r = doc.createRange();
  r.setStart(text, at);
  r.setEnd(text, at + words.length);
  return r;
}

function surface(over: Partial<AnnotationSurface> = {}): AnnotationSurface {
  const win = doc.defaultView!;
  return {
    doc,
    scroller: win,
    origin: () => ({ left: 100, top: 1000 }),
    rootAt: (node) => (root.contains(node) ? { root, key: '', selectors: [] } : null),
    keyOf: () => '',
    root: () => root,
    roots: () => [{ key: '', root }],
    onRoot: () => () => {},
    viewOf: () => () => null,
    reveal: vi.fn(),
    bringIntoView: () => false,
    wholeRoots: false,
    ...over,
  };
}

const annotationOn = (words: string, id: string, text = ''): Annotation => {
  const d = describeRange(root, rangeOver(words))!;
  return { id, quote: d.quote, text, selectors: d.selectors } as Annotation;
};

describe('selection watcher', () => {
  it('offers a settled selection, described on its root, boxed on the app’s page', () => {
    const onSelection = vi.fn();
    const stop = watchSelection(surface(), { onSelection, onTap: vi.fn(), onScroll: vi.fn() });
    vi.advanceTimersByTime(120);
    expect(onSelection).toHaveBeenLastCalledWith(null, false);
    doc.getSelection()!.addRange(rangeOver('word3 word4'));
    doc.dispatchEvent(new Event('selectionchange'));
    vi.advanceTimersByTime(119);
    expect(onSelection).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    const [pending, described] = onSelection.mock.calls[1]!;
    expect(described).toBe(true);
    expect(pending.description.quote).toBe('word3 word4');
    expect(pending.box).toEqual({ left: 110, top: 1020, right: 160, bottom: 1036 });
    stop();
    doc.dispatchEvent(new Event('selectionchange'));
    vi.advanceTimersByTime(1000);
    expect(onSelection).toHaveBeenCalledTimes(2);
  });

  it('waits longer for a touch selection to settle', () => {
    const onSelection = vi.fn();
    const stop = watchSelection(surface(), { onSelection, onTap: vi.fn(), onScroll: vi.fn() });
    doc.dispatchEvent(new Event('touchstart'));
    doc.getSelection()!.addRange(rangeOver('word5'));
    doc.dispatchEvent(new Event('selectionchange'));
    vi.advanceTimersByTime(300);
    expect(onSelection).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(onSelection.mock.calls[0]![0].description.quote).toBe('word5');
    stop();
  });

  it('a click with nothing selected is a tap; a scroll is said and the selection looked at again', () => {
    const onTap = vi.fn();
    const onScroll = vi.fn();
    const onSelection = vi.fn();
    const stop = watchSelection(surface(), { onSelection, onTap, onScroll });
    root.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(onTap).toHaveBeenCalledOnce();
    doc.getSelection()!.addRange(rangeOver('word7'));
    root.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    expect(onTap).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(200);
    onSelection.mockClear();
    window.dispatchEvent(new Event('scroll'));
    expect(onScroll).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(120);
    expect(onSelection).toHaveBeenCalledOnce();
    stop();
  });
});

describe('drawing', () => {
  it('draws 10 at a time every 10 ms, then says which anchored nowhere and reveals the one asked for', () => {
    const s = surface();
    const hl = new Highlighter(doc);
    const list = WORDS.slice(0, 24).map((w, i) => annotationOn(w, `a${i}`, i === 3 ? 'a note' : ''));
    const gone = { ...annotationOn('word29', 'gone'), quote: 'vanished', selectors: [{ type: 'TextQuoteSelector', exact: 'vanished words', prefix: '', suffix: '' }] } as Annotation;
    const onOrphans = vi.fn();
    const revealRef = { current: 'a20' };
    drawAnnotations({ surface: s, highlighter: hl, annotations: () => [...list, gone], onOrphans, revealRef });
    expect(hl.rangeOf('a9')).not.toBeNull();
    expect(hl.rangeOf('a10')).toBeNull();
    vi.advanceTimersByTime(ANNOTATION_TIMING.batchDelayMs);
    expect(hl.rangeOf('a19')).not.toBeNull();
    expect(onOrphans).not.toHaveBeenCalled();
    vi.advanceTimersByTime(ANNOTATION_TIMING.batchDelayMs);
    expect(list.every((a) => hl.rangeOf(a.id) !== null)).toBe(true);
    expect(onOrphans).toHaveBeenCalledWith([gone]);
    expect(s.reveal).toHaveBeenCalledWith(hl.rangeOf('a20'));
    expect(revealRef.current).toBeNull();
  });

  it('stops between batches when told', () => {
    const hl = new Highlighter(doc);
    const list = WORDS.slice(0, 15).map((w, i) => annotationOn(w, `a${i}`));
    const stop = drawAnnotations({ surface: surface(), highlighter: hl, annotations: () => list, onOrphans: vi.fn() });
    stop();
    vi.advanceTimersByTime(100);
    expect(hl.rangeOf('a9')).not.toBeNull();
    expect(hl.rangeOf('a10')).toBeNull();
  });

  it('draws one annotation again, anchoring it afresh when it was not drawn', () => {
    const hl = new Highlighter(doc);
    redrawAnnotation(surface(), hl, annotationOn('word12 word13', 'n'));
    expect(hl.rangeOf('n')).not.toBeNull();
    expect(doc.querySelector('mark')!.textContent).toBe('word12 word13');
  });
});

describe('store drafts and notices', () => {
  const fields = { text: 'why', tags: ['t'], sharing: { view: true, edit: false, admin: false } };

  it('a new note carries the selection, the page and its sharing; a preview’s is a preview annotation', () => {
    const description = describeRange(root, rangeOver('word1'))!;
    const d = newDraft(description, fields, '/library/view/x/b1/ch1');
    expect(d).toMatchObject({ quote: 'word1', text: 'why', tags: ['t'], uri: '/library/view/x/b1/ch1', is_public: true, annotation_type: ANNOTATION_TYPE_NOTE });
    expect(d.selectors).toEqual(description.selectors);
    expect(newDraft(description, { ...fields, preview: true }, '/').annotation_type).toBe('preview_annotation');
  });

  it('a change keeps the permissions it does not touch', () => {
    const a = { ...annotationOn('word2', 'a'), permissions: { read: ['group:__world__'], update: ['acct:ada'], delete: ['acct:ada'], admin: ['acct:ada'] } };
    const d = changeDraft(a, { ...fields, sharing: { view: false, edit: false, admin: false } });
    expect(d.is_public).toBe(false);
    expect(d.permissions!.delete).toEqual(['acct:ada']);
  });

  it('a failure becomes the §8 notice; no answer at all reads as the store unreachable', () => {
    expect(failureNotice(new ApiError(403, 'no'), 'update')).toBe(ANNOTATION_MESSAGES.notAllowed('update'));
    expect(failureNotice(new ApiError(0, 'offline'), 'read')).toBe(ANNOTATION_MESSAGES.storeUnreachable);
    expect(failureNotice(new Error('boom'), 'create')).toBe(ANNOTATION_MESSAGES.storeUnreachable);
    expect(failureNotice(new ApiError(500, 'x'), 'delete')).toBe(ANNOTATION_MESSAGES.storeFailed);
  });
});
