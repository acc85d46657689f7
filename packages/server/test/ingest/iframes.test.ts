/**
 * A book's iframes (docs/decisions.md "A book's iframes"): the importer never stores an `<iframe>`; where one showed a
 * document of the same publication it leaves a note, and for a title allowed to run scripts a hidden link from which
 * the scripted origin builds the frame again (scripted-origin.ts withFrames). Remote, data:, javascript: and other
 * files' frames go without a trace, scripted or not.
 */
import { SCRIPTS_CONSENT_MESSAGES } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { EMBED_CLASS, renderChapter, type RenderOptions } from '../../src/ingest/render.ts';
import { withFrames } from '../../src/scripted-origin.ts';

const CHAPTERS = new Set(['text/ch1.xhtml', 'text/ch2.xhtml']);
const DOCUMENTS = new Set(['text/inner.xhtml', 'other/deep.html']);

function options(overrides: Partial<RenderOptions> = {}): RenderOptions {
  return {
    chapterFullPath: 'text/ch1.xhtml',
    allowScripts: false,
    chapterUrl: (fullPath, fragment) => `/library/view/book/b1/${encodeURI(fullPath)}${fragment ? `#${encodeURIComponent(fragment)}` : ''}`,
    resourceUrl: (fullPath) => `/api/v1/book/b1/chapter/${encodeURI(fullPath)}`,
    isChapter: (fullPath) => CHAPTERS.has(fullPath),
    isDocument: (fullPath) => DOCUMENTS.has(fullPath),
    ...overrides,
  };
}

const chapter = (body: string) => `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head><body><p>Before.</p>${body}<p>After.</p></body></html>`;

const REMOVED = [
  '<iframe src="https://example.org/page.html" title="Remote"></iframe>',
  '<iframe src="//example.org/page.html"></iframe>',
  '<iframe src="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe src="jav&#x09;ascript:alert(1)"></iframe>',
  '<iframe srcdoc="&lt;p&gt;inline&lt;/p&gt;"></iframe>',
  '<iframe src="../images/picture.png"></iframe>',
  '<iframe src="../../../outside.xhtml"></iframe>',
  '<iframe src="missing.xhtml"></iframe>',
];

describe("a book's iframes at import", () => {
  it.each([false, true])('removes an iframe that shows nothing of the book without a trace (scripts allowed: %s)', (allowScripts) => {
    for (const frame of REMOVED) {
      const { html, frameDocuments } = renderChapter(chapter(frame), options({ allowScripts }));
      expect(html, frame).toBe('<p>Before.</p><p>After.</p>');
      expect(frameDocuments).toEqual([]);
    }
  });

  it("keeps a scripted title's iframe of its own document as a note with a hidden link, its size and style kept", () => {
    const { html, frameDocuments, textLength } = renderChapter(
      chapter('<iframe src="inner.xhtml" width="600" height="200" style="border: solid;" title="The inner page"></iframe><iframe src="ch2.xhtml#part"></iframe>'),
      options({ allowScripts: true }),
    );
    expect(html).toContain(
      `<span class="${EMBED_CLASS}" role="note" title="The inner page"><a hidden="hidden" href="/api/v1/book/b1/chapter/text/inner.xhtml" style="width: 600px; height: 200px; border: solid"></a>${SCRIPTS_CONSENT_MESSAGES.embeddedPage('The inner page')}</span>`,
    );
    // a chapter of the book is named by its reader address (the scripted origin maps it back)
    expect(html).toContain(`<a hidden="hidden" href="/library/view/book/b1/text/ch2.xhtml#part"></a>${SCRIPTS_CONSENT_MESSAGES.embeddedPage('')}`);
    expect(html).not.toContain('<iframe');
    // only documents that are not chapters need rendering as frame documents
    expect(frameDocuments).toEqual(['text/inner.xhtml']);
    expect(textLength).toBeGreaterThan('Before.After.'.length);
  });

  it("keeps an iframe of the book's SVG drawing: the link names its frame document, stored beside the drawing", () => {
    const svg = options({
      allowScripts: true,
      isDocument: (fullPath) => fullPath === 'images/drawing.svg',
      frameDocumentPath: (fullPath) => (fullPath === 'images/drawing.svg' ? 'images/drawing.svg.frame.html' : fullPath),
    });
    // (a fragment goes, as for a page that is not a chapter)
    const { html, frameDocuments } = renderChapter(chapter('<iframe src="../images/drawing.svg#view" width="800" height="800" title="A drawing"></iframe>'), svg);
    expect(html).toContain(
      `<span class="${EMBED_CLASS}" role="note" title="A drawing"><a hidden="hidden" href="/api/v1/book/b1/chapter/images/drawing.svg.frame.html" style="width: 800px; height: 800px"></a>${SCRIPTS_CONSENT_MESSAGES.embeddedPage('A drawing')}</span>`,
    );
    // the drawing itself is what gets rendered (as a frame document stored where frameDocumentPath says)
    expect(frameDocuments).toEqual(['images/drawing.svg']);
    // without scripts, the note alone, as for a page
    const plain = renderChapter(chapter('<iframe src="../images/drawing.svg" title="A drawing"></iframe>'), { ...svg, allowScripts: false });
    expect(plain.html).toBe(`<p>Before.</p><span class="${EMBED_CLASS}" role="note" title="A drawing">${SCRIPTS_CONSENT_MESSAGES.embeddedPage('A drawing')}</span><p>After.</p>`);
  });

  it('leaves only the note, no link, in a title without scripts', () => {
    const { html, frameDocuments } = renderChapter(chapter('<iframe src="inner.xhtml" title="The inner page"></iframe>'), options());
    expect(html).toBe(`<p>Before.</p><span class="${EMBED_CLASS}" role="note" title="The inner page">${SCRIPTS_CONSENT_MESSAGES.embeddedPage('The inner page')}</span><p>After.</p>`);
    expect(frameDocuments).toEqual([]);
  });

  it('a hostile title or style on a kept iframe stays text and sanitised CSS', () => {
    const { html } = renderChapter(
      chapter('<iframe src="../other/deep.html" title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" style="background: url(javascript:alert(1)); position: fixed; color: red"></iframe>'),
      options({ allowScripts: true }),
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('fixed');
    expect(html).toContain('href="/api/v1/book/b1/chapter/other/deep.html"');
  });
});

describe('the frame built again on the scripted origin', () => {
  it("turns the mark into an iframe of the book's document below the token, a chapter's reader address included", () => {
    const { html } = renderChapter(
      chapter('<iframe src="inner.xhtml" width="600" title="The inner page"></iframe><iframe src="ch2.xhtml"></iframe>'),
      options({ allowScripts: true }),
    );
    const served = withFrames(html.split('/api/v1/book/b1/chapter/').join('/b/TOKEN/'), 'TOKEN');
    expect(served).toBe('<p>Before.</p><iframe src="/b/TOKEN/text/inner.xhtml" title="The inner page" style="width: 600px"></iframe><iframe src="/b/TOKEN/text/ch2.xhtml"></iframe><p>After.</p>');
  });

  it('leaves a note whose link is not a page of the book as it is', () => {
    const lookalike = `<span class="${EMBED_CLASS}" role="note"><a hidden="hidden" href="https://example.org/"></a>Text</span>`;
    expect(withFrames(lookalike, 'TOKEN')).toBe(lookalike);
    const plain = '<p>No frames here.</p>';
    expect(withFrames(plain, 'TOKEN')).toBe(plain);
  });
});
