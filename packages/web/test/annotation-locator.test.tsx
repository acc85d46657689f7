/**
 * An annotation carries core's one Locator (docs/decisions.md "Annotations carry a Locator, derived on read"): made
 * from the selectors a selection is described by, it finds the annotation's words again the way a stored position
 * does, and the notes panel's way back to a note goes by it — in the chapter on show the frame goes there, another
 * chapter is opened with it as the route's target, which the initial position takes first.
 */
import { annotationLocator, DEFAULT_PREFERENCES, paths, type Annotation, type Locator } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useMemo } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeRange } from '../src/features/reader/annotations/anchoring.ts';
import { NotesPanel } from '../src/features/reader/annotations/NotesPanel.tsx';
import { useAnnotationGoTo, type TargetState } from '../src/features/reader/annotations/useAnnotationGoTo.ts';
import { FrameController } from '../src/features/reader/engine/frameController.ts';
import { findLocator } from '../src/features/reader/engine/frame/position.ts';
import { indexText } from '../src/features/reader/engine/textMarks.ts';
import { resolveInitialPosition } from '../src/shared/reading/position.ts';
import { chapterFrame, reducedMotion, removeFrames, type ChapterFrame } from './frame-fixture.ts';
import { json, stubFetch } from './helpers.tsx';
import { profile, storedNote } from './fixtures.ts';

const SENTENCE = 'The fox ran. ';
// "the fox" twice, the second one the note's: the context tells them apart.
const CHAPTER = `<p>${SENTENCE.repeat(3)}Then the fox slept.</p><p>Later, <em>near the river</em>, the fox woke and ran home.</p>`;

let c: ChapterFrame;
beforeEach(() => {
  reducedMotion(true);
  c = chapterFrame(CHAPTER);
  c.geometry({ width: 600, height: 800, scrollWidth: 1800 });
});
afterEach(() => {
  removeFrames();
  vi.unstubAllGlobals();
});

/** The second "the fox" of the chapter, selected and described as the reader describes a selection. */
function selectSecondFox() {
  const text = c.root.querySelectorAll('p')[1]!.lastChild as Text;
  const at = text.data.indexOf('the fox');
  const range = c.doc.createRange();
  range.setStart(text, at);
  range.setEnd(text, at + 'the fox woke'.length);
  return { text, at, description: describeRange(c.root, range)! };
}

function note(id: string, chapter_href: string, d: { quote: string; ranges: Annotation['ranges']; selectors: Annotation['selectors'] }): Annotation {
  return storedNote(id, chapter_href, d);
}

describe("an annotation's Locator in the chapter frame", () => {
  it('is made from the selection and finds the same words again, not the earlier ones', () => {
    const { text, at, description } = selectSecondFox();
    const length = indexText(c.root).text.length;
    const loc = annotationLocator({ chapter_href: 'ch1.xhtml', ...description }, length);
    expect(loc.href).toBe('ch1.xhtml');
    expect(loc.text?.highlight).toBe('the fox woke');
    expect(loc.text?.after?.startsWith(' and ran home')).toBe(true);
    const start = indexText(c.root).text.indexOf('the fox woke');
    expect(loc.progression).toBeCloseTo(start / length, 6);
    const found = findLocator(c.doc, loc)!;
    expect(found.startContainer).toBe(text);
    expect(found.startOffset).toBe(at);
  });
});

describe("the notes panel's way back to a note", () => {
  function Where() {
    const location = useLocation();
    return <output data-testid="where">{JSON.stringify({ path: location.pathname, state: location.state as TargetState | null })}</output>;
  }

  function Harness({ frame, revealRef }: { frame: FrameController; revealRef: { current: string | null } }) {
    const surfaceLength = useMemo(() => indexText(c.root).text.length, []);
    const go = useAnnotationGoTo({
      frame,
      pdf: false,
      // as useChapterAnnotations locates: the chapter on show with its text length, another by its words
      locate: (a) => annotationLocator(a, a.chapter_href === frame.chapterHref ? surfaceLength : undefined),
      reveal: () => false,
      revealRef,
      readerPath: (href) => paths.reader('x', 'b1', href),
    });
    return (
      <>
        <NotesPanel open bookId="b1" titleSafe="x" userUuid={profile.user_uuid} orphanIds={new Set()} onClose={() => {}} onGo={go} />
        <Where />
      </>
    );
  }

  it('goes to a note of the chapter on show in its frame, and opens another chapter at its Locator', { timeout: 20_000 }, async () => {
    const { description } = selectSecondFox();
    const here = note('n1', 'ch1.xhtml', description);
    const there = note('n2', 'ch2.xhtml', { quote: 'a later word', ranges: [], selectors: [{ type: 'TextQuoteSelector', exact: 'a later word', prefix: 'far into ', suffix: ' of it' }, { type: 'TextPositionSelector', start: 900, end: 912 }] });
    const token = `e30.${btoa(JSON.stringify({ consumerKey: 'lectern', userId: profile.user_uuid, issuedAt: new Date().toISOString(), ttl: 3600 })).replace(/=+$/, '')}.sig`;
    stubFetch((call) => {
      const url = new URL(call.url, 'http://localhost');
      if (url.pathname === '/auth/token') return new Response(token, { status: 200, headers: { 'content-type': 'text/plain' } });
      if (url.pathname.endsWith('/search')) return json(200, { total: 2, rows: [here, there] });
      return json(404, { detail: 'Not found.' });
    });
    const onProgress = vi.fn<(pct: number, locator: Locator) => void>();
    const frame = new FrameController(c.frame, { ...DEFAULT_PREFERENCES, pagination: 'page' }, 'ch1.xhtml', 'b1', (p) => p, {
      onProgress,
      onEdge: () => {},
      onNavigate: () => {},
      onImage: () => {},
    });
    const revealRef = { current: null as string | null };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[paths.reader('x', 'b1', 'ch1.xhtml')]}>
          <Harness frame={frame} revealRef={revealRef} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const where = () => JSON.parse(screen.getByTestId('where').textContent) as { path: string; state: TargetState | null };

    // The chapter on show: the frame goes to the note's words, which become the reading position.
    fireEvent.click(await screen.findByRole('button', { name: /the fox woke/ }, { timeout: 8_000 }));
    // (the place is reported once things settle: waited for, not slept on)
    await waitFor(() => expect(onProgress).toHaveBeenCalled());
    const reported = onProgress.mock.lastCall![1];
    expect(reported.href).toBe('ch1.xhtml');
    expect(reported.text?.highlight?.startsWith('the fox woke')).toBe(true);
    expect(where()).toEqual({ path: paths.reader('x', 'b1', 'ch1.xhtml'), state: null });
    expect(revealRef.current).toBeNull();

    // Another chapter: opened with the note's Locator as its target, which comes before the stored position.
    fireEvent.click(screen.getByRole('button', { name: /a later word/ }));
    await waitFor(() => expect(where().path).toBe(paths.reader('x', 'b1', 'ch2.xhtml')));
    const target = where().state!.target!;
    expect(target).toEqual(annotationLocator(there));
    expect(target).toEqual({ href: 'ch2.xhtml', progression: 0, text: { before: 'far into ', highlight: 'a later word', after: ' of it' } });
    const stored: Locator = { href: 'ch2.xhtml', progression: 0.1 };
    // and once drawn there, the note's own range is brought into view (the same place: a fallback)
    expect(revealRef.current).toBe('n2');
    expect(resolveInitialPosition({ target, stored, topPercentage: 40 })).toEqual({ kind: 'stored', locator: target });
    frame.destroy();
  });
});
