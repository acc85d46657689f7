/**
 * A title flagged to allow scripts (allow_scripts) must not get a chapter frame on the app's origin that runs them:
 * such a frame is `allow-same-origin`, so a book script with allow-scripts could lift its own sandbox and act as the
 * reader. Every app-origin chapter frame is `allow-same-origin` alone and every chapter document forbids scripts in
 * its CSP. Scripts run only in the frame of the scripted origin the server names (docs/decisions.md "Scripted
 * titles"); a server without one (404) gets the title the same frames as any other. A real local server answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PREFERENCES, paths, type ArchiveItem, type ChapterItem } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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
  // The chapter asks the reader's scripts consent and the contents through react-query (fresh per test).
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
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
    </MemoryRouter>
    </QueryClientProvider>,
  );
}

const SCRIPTED_ORIGIN = 'http://books.localhost:8181';
let server: Server;
let base = '';
/** What the server answers for the scripted frame: null is 404 (no scripted origin configured). */
let frameAnswer: { url: string; origin: string } | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    // The reader allowed this title's scripts: the frame is asked for only once the consent says so.
    if (req.url?.startsWith(paths.scriptsConsent('b1')) && frameAnswer) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ book_id: 'b1', decision: 'allowed' }));
    else if (req.url?.startsWith(paths.scriptedFrame('b1')) && frameAnswer) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(frameAnswer));
    else res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'This server runs no book scripts.' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => realFetch(new URL(url, base), init));
});
afterEach(() => {
  vi.unstubAllGlobals();
  frameAnswer = null;
});

describe('a title that allows scripts', () => {
  for (const allowScripts of [true, false]) {
    it(`gets app-origin frames without allow-scripts and a CSP forbidding scripts when the server has no scripted origin (allow_scripts: ${allowScripts})`, async () => {
      const { container } = renderChapter(allowScripts);
      await waitFor(() => expect(container.querySelectorAll('iframe.chapter-view__frame').length).toBeGreaterThan(0));
      // the spare frame (the next chapter's) is made once the chapter is shown, when the page is idle: both are checked
      await waitFor(() => expect(container.querySelectorAll('iframe')).toHaveLength(2));
      const frames = Array.from(container.querySelectorAll('iframe'));
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

  it('runs a scripted title only in the frame of the scripted origin the server names', async () => {
    frameAnswer = { url: `${SCRIPTED_ORIGIN}/b/token/OEBPS/ch1.xhtml`, origin: SCRIPTED_ORIGIN };
    const { container } = renderChapter(true);
    await waitFor(() => expect(container.querySelector('iframe.scripted-chapter__frame')).not.toBeNull());
    const frames = Array.from(container.querySelectorAll('iframe'));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.getAttribute('src')).toBe(frameAnswer.url);
    expect(new URL(frames[0]!.getAttribute('src')!).origin).not.toBe(window.location.origin);
    expect(frames[0]!.getAttribute('sandbox')?.split(/\s+/).sort()).toEqual(['allow-same-origin', 'allow-scripts']);
  });
});
