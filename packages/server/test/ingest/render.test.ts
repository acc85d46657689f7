import { DomUtils, parseDocument } from 'htmlparser2';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { renderChapter, sanitizeFragment, type RenderOptions } from '../../src/ingest/render.ts';
import { FETCH_TIMEOUT_MS, fetchNpmSamples, readBook, type NpmSamples } from './helpers.ts';

let samples: NpmSamples;
beforeAll(async () => {
  samples = await fetchNpmSamples();
}, FETCH_TIMEOUT_MS);

const CHAPTERS = new Set(['text/ch1.xhtml', 'text/ch2.xhtml']);

function options(overrides: Partial<RenderOptions> = {}): RenderOptions {
  return {
    chapterFullPath: 'text/ch1.xhtml',
    allowScripts: false,
    chapterUrl: (fullPath, fragment) => `/read/${encodeURI(fullPath)}${fragment ? `#${encodeURIComponent(fragment)}` : ''}`,
    resourceUrl: (fullPath) => `/files/${encodeURI(fullPath)}`,
    isChapter: (fullPath) => CHAPTERS.has(fullPath),
    ...overrides,
  };
}

/** Every value of an attribute in the output, read back with a parser. */
function attributeValues(html: string, tag: string, attribute: string): string[] {
  return DomUtils.findAll((element) => element.name === tag, parseDocument(html).children).flatMap((element) => {
    const value = element.attribs[attribute];
    return value === undefined ? [] : [value];
  });
}

const HOSTILE = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head>
  <title>A hostile chapter</title>
  <base href="https://evil.example/"/>
  <link rel="stylesheet" type="text/css" href="../css/book.css"/>
  <link rel="stylesheet" href="../css/extra%20styles.css"/>
  <style>body{display:none}</style>
  <script>parent.document.cookie</script>
</head>
<body onload="steal()">
  <style>body{display:none}</style>
  <h1 epub:type="title" xml:lang="en" onclick="steal()">Chapter One</h1>
  <a id="page1"/>
  <p>Read <a href="javascript:steal()">this</a>, <a href="ch2.xhtml#s%201">the next chapter</a>,
     <a href="#note1">a note</a>, <a href="ch1.xhtml#top">the top</a>, <a href="https://example.org/x" target="_self">the web</a>
     and <a href="mailto:someone@example.org">mail</a>.</p>
  <img src="../images/pic%201.png" onerror="steal()" alt="A picture"/>
  <img src="data:image/png;base64,iVBORw0KGgo="/>
  <img src="data:text/html;base64,PHNjcmlwdD4="/>
  <img src="https://tracker.example/pixel.gif"/>
  <iframe src="https://evil.example/">iframe fallback</iframe>
  <object data="movie.swf">object fallback</object>
  <form action="https://evil.example/"><input name="q"/><button>Send</button></form>
  <p style="text-align: center; position: fixed; background: url(javascript:steal())">Centred</p>
  <svg xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><image xlink:href="../images/cover.jpg"/></svg>
  <script src="../js/book.js"></script>
  <script>steal()</script>
</body>
</html>`;

describe('renderChapter', () => {
  it('removes everything that could run script or escape the book', () => {
    const { html } = renderChapter(HOSTILE, options());
    for (const forbidden of ['<script', 'steal()', 'onload', 'onerror', 'onclick', 'javascript:', '<iframe', '<object', '<form', '<input', '<base', '<style', 'display:none', 'evil.example', 'tracker.example', 'data:text', 'position', 'background', '<link']) {
      expect(html).not.toContain(forbidden);
    }
    expect(html).not.toContain('iframe fallback');
    expect(html).toContain('Centred');
    expect(attributeValues(html, 'p', 'style')).toEqual(['text-align:center']);
  });

  it('rewrites chapter links, fragment links and resource URLs', () => {
    const rendered = renderChapter(HOSTILE, options());
    const hrefs = attributeValues(rendered.html, 'a', 'href');
    expect(hrefs).toEqual([
      '/read/text/ch2.xhtml#s%201',
      '#note1',
      '#top',
      'https://example.org/x',
      'mailto:someone@example.org',
    ]);
    expect(attributeValues(rendered.html, 'img', 'src')).toEqual(['/files/images/pic%201.png', 'data:image/png;base64,iVBORw0KGgo=']);
    expect(attributeValues(rendered.html, 'image', 'xlink:href')).toEqual(['/files/images/cover.jpg']);
    const external = DomUtils.findAll((element) => element.attribs.href === 'https://example.org/x', parseDocument(rendered.html).children)[0];
    expect(external?.attribs).toMatchObject({ rel: 'noopener noreferrer', target: '_blank' });
    expect(attributeValues(rendered.html, 'h1', 'data-epub-type')).toEqual(['title']);
    expect(attributeValues(rendered.html, 'h1', 'lang')).toEqual(['en']);
    // XHTML's self-closing <a/> stays empty instead of swallowing the paragraph after it.
    expect(rendered.html).toContain('<a id="page1"></a>');
    expect(rendered.stylesheets).toEqual(['/files/css/book.css', '/files/css/extra%20styles.css']);
    expect(rendered.title).toBe('A hostile chapter');
    expect(rendered.textLength).toBeGreaterThan(0);
  });

  it('reads URLs as the browser does: tabs, newlines and control characters do not hide a javascript: scheme', () => {
    const { html } = renderChapter(
      '<body><p><a href="jav&#x09;ascript:steal()">tab</a> <a href="java&#x0A;script:steal()">newline</a> ' +
        '<a href="&#x01; javascript:steal()">control</a> <a href="da&#x09;ta:text/html,x">data</a> ' +
        '<a href="ch&#x09;2.xhtml">the next chapter</a></p><img src="jav&#x0D;ascript:steal()"/></body>',
      options(),
    );
    expect(attributeValues(html, 'a', 'href')).toEqual(['/read/text/ch2.xhtml']);
    expect(attributeValues(html, 'img', 'src')).toEqual([]);
    expect(html).not.toMatch(/steal|ascript/);
  });

  it('keeps only external book scripts when the title allows scripts', () => {
    const { html } = renderChapter(HOSTILE, options({ allowScripts: true }));
    expect(attributeValues(html, 'script', 'src')).toEqual(['/files/js/book.js']);
    expect(html).not.toContain('steal()');
    expect(html).not.toContain('parent.document');
    expect(html).not.toContain('onerror');
  });

  it('renders every chapter of the real books with links that lead somewhere in the book', () => {
    for (const sample of [samples.alice, samples.worlds, samples.moby]) {
      const book = parseEpub(readBook(sample), sample.file);
      const chapters = new Set(book.chapters.map((chapter) => chapter.fullPath));
      const resources = new Set(book.resources.map((resource) => resource.fullPath));
      for (const chapter of book.chapters) {
        const rendered = renderChapter(chapter.rawHtml, {
          chapterFullPath: chapter.fullPath,
          allowScripts: false,
          chapterUrl: (fullPath, fragment) => `chapter:${fullPath}#${fragment ?? ''}`,
          resourceUrl: (fullPath) => `resource:${fullPath}`,
          isChapter: (fullPath) => chapters.has(fullPath),
        });
        expect(rendered.textLength).toBe(chapter.textLength);
        for (const src of attributeValues(rendered.html, 'img', 'src')) {
          expect(resources.has(src.replace(/^resource:/, '')), `${chapter.fullPath}: ${src}`).toBe(true);
        }
        for (const href of attributeValues(rendered.html, 'a', 'href')) {
          const ok =
            href.startsWith('#') ||
            /^(https?|mailto):/.test(href) ||
            chapters.has(href.replace(/^chapter:/, '').replace(/#.*$/, ''));
          expect(ok, `${chapter.fullPath}: ${href}`).toBe(true);
        }
        for (const stylesheet of rendered.stylesheets) {
          expect(resources.has(stylesheet.replace(/^resource:/, '')), `${chapter.fullPath}: ${stylesheet}`).toBe(true);
        }
      }
    }
  });
});

describe('sanitizeFragment', () => {
  it('applies the same allow-list without rewriting relative links', () => {
    const html = sanitizeFragment(
      '<p onclick="steal()">A <b>bold</b> <a href="javascript:steal()">trap</a>, <a href="notes.html#n1" target="_top">a note</a> ' +
        'and <a href="https://example.org">a site</a>.<script>steal()</script><style>p{}</style><img src="x.png" onerror="steal()"></p>',
    );
    expect(html).toBe(
      '<p>A <b>bold</b> <a>trap</a>, <a href="notes.html#n1">a note</a> and ' +
        '<a href="https://example.org" rel="noopener noreferrer" target="_blank">a site</a>.<img src="x.png" /></p>',
    );
  });
});
