/**
 * A title flagged to allow scripts (allow_scripts) must not get a chapter frame that runs them: the frame is on the
 * app's origin (allow-same-origin), so a book script with allow-scripts could lift its own sandbox and act as the
 * reader. Every chapter frame is `allow-same-origin` alone and every chapter document forbids scripts in its CSP.
 */
import { DEFAULT_PREFERENCES, type ArchiveItem, type ChapterItem } from '@lectern/core';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ChapterBody } from '../src/features/reader/ChapterBody.tsx';
import type { ChapterLoad } from '../src/features/reader/useReaderChapter.ts';

function scriptedLoad(allowScripts: boolean): ChapterLoad {
  const chapter = {
    uri: 'OEBPS/ch1.xhtml',
    content: '<p>Hello</p>',
    content_type: 'text/html',
    label: 'One',
    encoding: null,
    checksum: null,
    item_order: 0,
    as_sample: false,
    is_public: false,
    stylesheets: [],
    allow_scripts: allowScripts,
  } as unknown as ChapterItem;
  const item = {
    title: 'A scripted book',
    chapter_label: 'One',
    book_id: 'b1',
    chapter_href: 'OEBPS/ch1.xhtml',
    allow_scripts: allowScripts,
    next_chapter_uri: null,
    resources: [chapter],
  } as unknown as ArchiveItem;
  return { kind: 'html', item, chapter, html: '<p>Hello</p><script>parent.__ran = true</script>', encrypted: false };
}

function renderChapter(allowScripts: boolean) {
  return render(
    <MemoryRouter>
      <ChapterBody
        bookId="b1"
        load={scriptedLoad(allowScripts)}
        pending={false}
        offline={false}
        error={null}
        retry={() => undefined}
        switching={false}
        next={null}
        prefs={DEFAULT_PREFERENCES}
        pdfZoom={{ fit: true, zoom: 1, onFitZoom: () => undefined }}
        initial={() => ({ kind: 'percentage', value: 0 })}
        readerPath={(p) => `/library/view/t/b1/${p}`}
        callbacks={{ onProgress: () => undefined, onEdge: () => undefined, onNavigate: () => undefined, onImage: () => undefined }}
        onReady={() => undefined}
        onPdfProgress={() => undefined}
        onPdfReady={() => undefined}
      />
    </MemoryRouter>,
  );
}

describe('a title that allows scripts', () => {
  for (const allowScripts of [true, false]) {
    it(`gets frames without allow-scripts and a CSP forbidding scripts (allow_scripts: ${allowScripts})`, () => {
      const { container } = renderChapter(allowScripts);
      const frames = Array.from(container.querySelectorAll('iframe'));
      expect(frames).toHaveLength(2);
      for (const frame of frames) {
        expect(frame.getAttribute('sandbox')).toBe('allow-same-origin');
        expect(frame.getAttribute('sandbox')?.split(/\s+/)).not.toContain('allow-scripts');
      }
      const shown = container.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')!;
      const csp = shown.contentDocument?.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content');
      expect(csp).toContain("script-src 'none'");
      expect(csp).not.toMatch(/unsafe-inline'[^;]*;?\s*$|script-src 'self'/);
    });
  }
});
