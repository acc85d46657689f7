/**
 * reader.md §4's annotation defaults (docs/decisions.md "Annotation defaults"): the page's declared highlight privacy
 * (public by default, or forced private with the Public option disabled), whitespace-only text never highlighted nor
 * offered, and the viewer's 250 ms hide delay after the mouse leaves it.
 */
import { ANNOTATION_GROUPS, ANNOTATION_MESSAGES, ANNOTATION_TIMING, HIGHLIGHT_PRIVACY_ATTRIBUTES, highlightPrivacyAttributes, type Annotation } from '@lectern/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnnotationLayer } from '../src/features/reader/annotations/AnnotationLayer.tsx';
import { describeRange } from '../src/features/reader/annotations/anchoring.ts';
import { Highlighter, paintedRanges } from '../src/features/reader/annotations/highlighter.ts';
import type { NoteFields, useChapterAnnotations } from '../src/features/reader/annotations/useChapterAnnotations.ts';
import { profile } from './fixtures.ts';

type Layer = ReturnType<typeof useChapterAnnotations>;
const BOX = { left: 100, top: 200, right: 300, bottom: 220 };

function declare(setting: 'private' | 'public' | 'private-only') {
  for (const name of Object.values(HIGHLIGHT_PRIVACY_ATTRIBUTES)) document.documentElement.removeAttribute(name);
  for (const [name, value] of Object.entries(highlightPrivacyAttributes(setting))) document.documentElement.setAttribute(name, value);
}

/** The hook's answer as the layer reads it, with a selection pending or a highlight being viewed. */
function layerWith(opts: { viewing?: Annotation }) {
  const created: NoteFields[] = [];
  const closed = vi.fn();
  const layer = {
    annotations: [],
    orphans: [],
    reveal: () => false,
    selection: opts.viewing ? null : { description: { quote: 'the planet Mars', ranges: [], selectors: [] }, box: BOX },
    clearSelection: () => undefined,
    viewing: opts.viewing ? { annotation: opts.viewing, box: BOX } : null,
    closeViewer: closed,
    create: async (_d: unknown, fields: NoteFields) => {
      created.push(fields);
      return null;
    },
    update: async () => null,
    remove: async () => true,
    notice: null,
    dismissNotice: () => undefined,
  } as unknown as Layer;
  return { layer, created, closed };
}

const annotation: Annotation = {
  id: 'a1',
  quote: 'the planet Mars',
  text: '',
  tags: [],
  ranges: [],
  selectors: [],
  uri: '/library/view/x/b1/ch1.xhtml',
  user: profile.user_uuid,
  consumer: 'lectern',
  permissions: { read: [profile.user_uuid], update: [], delete: [], admin: [] },
  is_public: false,
  created: '2030-01-01T00:00:00Z',
  updated: '2030-01-01T00:00:00Z',
  chapter_href: 'ch1.xhtml',
  annotation_type: 3,
} as unknown as Annotation;

afterEach(() => {
  declare('private');
  vi.useRealTimers();
});

describe("the page's declared highlight privacy (reader.md §4)", () => {
  it('makes Add Highlight private when the page declares nothing, public when it declares public', async () => {
    for (const [setting, view] of [
      ['private', false],
      ['public', true],
      ['private-only', false],
    ] as const) {
      declare(setting);
      const { layer, created } = layerWith({});
      const { unmount } = render(<AnnotationLayer layer={layer} profile={profile} />);
      await act(async () => fireEvent.click(screen.getByRole('button', { name: /Add Highlight/ })));
      expect(created.at(-1)?.sharing.view, setting).toBe(view);
      unmount();
    }
  });

  it("ticks the editor's Public box for a new note on a public page; forced private, unticks and disables it", async () => {
    declare('public');
    let { layer, created } = layerWith({});
    const first = render(<AnnotationLayer layer={layer} profile={profile} />);
    fireEvent.click(screen.getByRole('button', { name: /Add Note/ }));
    const box = screen.getByRole<HTMLInputElement>('checkbox', { name: ANNOTATION_MESSAGES.publicOption });
    expect(box.checked).toBe(true);
    expect(box.disabled).toBe(false);
    first.unmount();

    declare('private-only');
    ({ layer, created } = layerWith({}));
    render(<AnnotationLayer layer={layer} profile={profile} />);
    fireEvent.click(screen.getByRole('button', { name: /Add Note/ }));
    const forced = screen.getByRole<HTMLInputElement>('checkbox', { name: ANNOTATION_MESSAGES.publicOption });
    expect(forced.checked).toBe(false);
    expect(forced.disabled).toBe(true);
    expect(document.getElementById(forced.getAttribute('aria-describedby')!)?.textContent).toBe(ANNOTATION_MESSAGES.forcedPrivate);
    fireEvent.click(forced);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    expect(created.at(-1)?.sharing.view).toBe(false);
  });

  it('needs both the switch and the override flag to force notes private', () => {
    declare('public');
    document.documentElement.setAttribute(HIGHLIGHT_PRIVACY_ATTRIBUTES.privacySwitch, '');
    const { layer } = layerWith({});
    render(<AnnotationLayer layer={layer} profile={profile} />);
    fireEvent.click(screen.getByRole('button', { name: /Add Note/ }));
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: ANNOTATION_MESSAGES.publicOption }).disabled).toBe(false);
  });

  it('keeps an existing public note public in the editor unless notes are forced private', () => {
    const shared = { ...annotation, is_public: true, permissions: { ...annotation.permissions, read: [ANNOTATION_GROUPS.world] } };
    declare('private-only');
    const { layer } = layerWith({ viewing: shared });
    render(<AnnotationLayer layer={layer} profile={profile} />);
    fireEvent.click(screen.getByRole('button', { name: /Add Note/ }));
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: ANNOTATION_MESSAGES.publicOption }).checked).toBe(false);
  });
});

describe('the viewer hides 250 ms after the mouse leaves it (reader.md §4, §9)', () => {
  it('closes at 250 ms, not before, and stays when the mouse comes back or for a touch', () => {
    vi.useFakeTimers();
    const { layer, closed } = layerWith({ viewing: annotation });
    render(<AnnotationLayer layer={layer} profile={profile} />);
    const viewer = screen.getByRole('dialog', { name: 'Highlight' });
    fireEvent.pointerOut(viewer, { pointerType: 'touch' });
    act(() => vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs * 4));
    expect(closed).not.toHaveBeenCalled();

    fireEvent.pointerOut(viewer, { pointerType: 'mouse' });
    act(() => vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs - 50));
    fireEvent.pointerOver(viewer, { pointerType: 'mouse' });
    act(() => vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs * 4));
    expect(closed).not.toHaveBeenCalled();

    fireEvent.pointerOut(viewer, { pointerType: 'mouse' });
    act(() => vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs - 1));
    expect(closed).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(closed).toHaveBeenCalledTimes(1);
  });
});

describe('whitespace-only text is never highlighted (reader.md §4)', () => {
  const html = '<div id="root"><p><em>planet</em> <strong>Mars</strong></p>\n\n<pre>a\n   \nb</pre></div>';

  it('offers nothing for a selection of spaces and line breaks only', () => {
    document.body.innerHTML = html;
    const root = document.getElementById('root')!;
    const p = root.querySelector('p')!;
    const space = p.childNodes[1] as Text;
    const r = document.createRange();
    r.setStart(space, 0);
    r.setEnd(space, 1);
    expect(describeRange(root, r)).toBeNull();
    const between = document.createRange();
    between.setStart(p.nextSibling!, 0);
    between.setEnd(p.nextSibling!, 2);
    expect(describeRange(root, between)).toBeNull();
  });

  it("paints a range's words and leaves out its whitespace-only text nodes", () => {
    document.body.innerHTML = html;
    const root = document.getElementById('root')!;
    const r = document.createRange();
    r.setStart(root.querySelector('em')!.firstChild!, 0);
    r.setEnd(root.querySelector('strong')!.firstChild!, 4);
    expect(paintedRanges(document, r).map((x) => x.toString())).toEqual(['planet', 'Mars']);
    // A range within one word stays one range.
    const word = document.createRange();
    word.setStart(root.querySelector('em')!.firstChild!, 1);
    word.setEnd(root.querySelector('em')!.firstChild!, 4);
    expect(paintedRanges(document, word)).toEqual([word]);

    // The <mark> fallback (jsdom has no Highlight API) wraps the words only.
    const hl = new Highlighter(document);
    hl.add('x', r, 'highlight');
    expect(Array.from(root.querySelectorAll('mark.lectern-annotation')).map((m) => m.textContent)).toEqual(['planet', 'Mars']);
    expect(hl.rangeOf('x')).toBe(r);
  });
});
