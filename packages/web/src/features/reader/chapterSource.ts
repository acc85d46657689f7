/** A decrypted chapter as the chapter frames are given it (ChapterView, ContinuousView, the next chapter prepared). */
import { paths } from '@lectern/core';
import type { ChapterSource } from './ChapterView.tsx';
import type { ChapterLoad } from './useReaderChapter.ts';

/** What the chapter frame is given to show a decrypted chapter (the same for the chapter on show and the next). */
export function chapterSource(bookId: string, l: Extract<ChapterLoad, { kind: 'html' }>): ChapterSource {
  return {
    html: l.html,
    label: l.item.chapter_label || l.chapter.label,
    stylesheets: l.chapter.stylesheets,
    baseHref: new URL(paths.chapterApi(bookId, l.item.chapter_href), window.location.href).href,
    href: l.item.chapter_href,
    rtl: l.item.page_progression === 'rtl',
    root: l.item.root_attributes ?? null,
    alignXCenter: l.item.rendition?.align_x_center === true,
  };
}
