/**
 * reader.md §4's annotation defaults (docs/decisions.md "Annotation defaults"): the page's declared highlight privacy
 * (public by default, or forced private with the Public option disabled), whitespace-only text never highlighted nor
 * offered, and the viewer's 250 ms hide delay after the mouse leaves it. Also the pop-ups' words as reader.md §2, §5,
 * §6 and §8 quote them: the preview creator's "Add preview content" and "Edit Preview", the note editor's
 * placeholder, and the delete confirm with its two buttons.
 */
import { ANNOTATION_GROUPS, ANNOTATION_MESSAGES, ANNOTATION_TIMING, HIGHLIGHT_PRIVACY_ATTRIBUTES, highlightPrivacyAttributes, type AccountProfile, type Annotation } from '@lectern/core';
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
  const created: (NoteFields & { preview?: boolean })[] = [];
  const updated: NoteFields[] = [];
  const closed = vi.fn();
  const layer = {
    annotations: [],
    orphans: [],
    reveal: () => false,
    selection: opts.viewing ? null : { description: { quote: 'the planet Mars', ranges: [], selectors: [] }, box: BOX },
    clearSelection: () => undefined,
    viewing: opts.viewing ? { annotation: opts.viewing, box: BOX } : null,
    closeViewer: closed,
    create: async (_d: unknown, fields: NoteFields & { preview?: boolean }) => {
      created.push(fields);
      return null;
    },
    update: async (_a: Annotation, fields: NoteFields) => {
      updated.push(fields);
      return null;
    },
    remove: async () => true,
    notice: null,
    dismissNotice: () => undefined,
  } as unknown as Layer;
  return { layer, created, updated, closed };
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
    act(() => {
      vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs * 4);
    });
    expect(closed).not.toHaveBeenCalled();

    fireEvent.pointerOut(viewer, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs - 50);
    });
    fireEvent.pointerOver(viewer, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs * 4);
    });
    expect(closed).not.toHaveBeenCalled();

    fireEvent.pointerOut(viewer, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(ANNOTATION_TIMING.viewerHideMs - 1);
    });
    expect(closed).not.toHaveBeenCalled();
    act(() => {
      vi.advanceTimersByTime(1);
    });
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

describe("the pop-ups' words (reader.md §2, §5, §6, §8)", () => {
  const previewCreator: AccountProfile = { ...profile, account: { ...profile.account, roles: ['preview-creator'] } };

  it('offers "Add preview content" to preview creators only; its editor saves a preview, with the note placeholder', async () => {
    const plain = layerWith({});
    const first = render(<AnnotationLayer layer={plain.layer} profile={profile} />);
    expect(screen.getByRole('toolbar', { name: 'Annotate the selection' }).textContent).not.toContain('preview');
    first.unmount();

    const { layer, created } = layerWith({});
    render(<AnnotationLayer layer={layer} profile={previewCreator} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add preview content' }));
    const note = screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Note' });
    expect(note.placeholder).toBe('Add a note using markdown (optional)');
    fireEvent.change(note, { target: { value: 'Read this first' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    expect(created).toEqual([expect.objectContaining({ text: 'Read this first', preview: true })]);
  });

  it('shows "Edit Preview" in the viewer of a preview annotation, "Edit Note" for a note', () => {
    const preview = { ...annotation, text: 'Start here', annotation_type: 'preview_annotation' } as Annotation;
    const first = render(<AnnotationLayer layer={layerWith({ viewing: preview }).layer} profile={previewCreator} />);
    expect(screen.getByRole('button', { name: 'Edit Preview' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Edit Note' })).toBeNull();
    first.unmount();
    render(<AnnotationLayer layer={layerWith({ viewing: { ...annotation, text: 'Start here' } }).layer} profile={previewCreator} />);
    expect(screen.getByRole('button', { name: 'Edit Note' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Edit Preview' })).toBeNull();
  });

  it('asks "Are you sure you want to permanently delete this note?": "No, I changed my mind" keeps it, "Yes, delete it" clears it', async () => {
    const noted = { ...annotation, text: 'Worth rereading', tags: ['mars'] };
    const { layer, updated } = layerWith({ viewing: noted });
    render(<AnnotationLayer layer={layer} profile={profile} />);
    fireEvent.click(screen.getByRole('button', { name: 'Delete Note' }));
    const ask = screen.getByRole('alertdialog', { name: 'Are you sure you want to permanently delete this note?' });
    expect(ask.querySelector('p')!.textContent).toBe('Are you sure you want to permanently delete this note?');
    fireEvent.click(screen.getByRole('button', { name: 'No, I changed my mind' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(updated).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Delete Note' }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Yes, delete it' })));
    // the note's text goes; the highlight and its tags stay (decisions.md "Annotations in the reader")
    expect(updated).toEqual([expect.objectContaining({ text: '', tags: ['mars'] })]);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});
