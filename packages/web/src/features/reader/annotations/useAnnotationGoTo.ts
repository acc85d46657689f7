/**
 * Going to an annotation (the notes panel's way back to a note; docs/decisions.md "Annotations carry a Locator,
 * derived on read"): by its Locator, the path a stored reading position takes. The chapter on show goes there at
 * once (FrameController.goToLocator); another chapter is opened with the Locator as the route's target, which the
 * initial position takes ahead of the stored one (shared/reading/position.ts resolveInitialPosition), and once the
 * note is drawn there its own range is revealed too: the same place, unless its words were not found by the Locator
 * (a long chapter's slices are chosen by words that must not cross markup). A PDF's annotations are on its pages
 * (their FragmentSelector), so there the page is brought into view, then the note.
 */
import type { Annotation, Locator } from '@lectern/core';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import type { FrameController } from '../engine/frameController.ts';

/** The route state that opens a chapter at a place. */
export interface TargetState {
  target?: Locator;
}

export function useAnnotationGoTo(o: {
  /** the chapter frame on show (null: none, or a PDF) */
  frame: Pick<FrameController, 'chapterHref' | 'goToLocator'> | null;
  pdf: boolean;
  /** the annotation's Locator (useChapterAnnotations `locate`) */
  locate: (a: Annotation) => Locator;
  /** a PDF: brings the annotation (or its page) into view; false when it is not in this document */
  reveal: (id: string) => boolean;
  revealRef: { current: string | null };
  readerPath: (chapterHref: string) => string;
  /** called first (the panel closes) */
  before?: () => void;
}): (a: Annotation) => void {
  const navigate = useNavigate();
  const { frame, pdf, locate, reveal, revealRef, readerPath, before } = o;
  return useCallback(
    (a: Annotation) => {
      before?.();
      if (pdf) {
        if (reveal(a.id)) return;
        revealRef.current = a.id;
        void navigate(readerPath(a.chapter_href));
        return;
      }
      const locator = locate(a);
      if (frame && frame.chapterHref === a.chapter_href) {
        frame.goToLocator(locator);
        return;
      }
      revealRef.current = a.id;
      void navigate(readerPath(a.chapter_href), { state: { target: locator } satisfies TargetState });
    },
    [before, pdf, reveal, revealRef, locate, frame, navigate, readerPath],
  );
}
