/**
 * Every payload of the sanitiser projects' own XSS suites (DOMPurify's fixtures, sanitize-html's tests, OWASP's
 * filter evasion cheat sheet: test/fixtures/xss) goes through the chapter sanitiser as an imported chapter does
 * (inside an EPUB, read by parseEpub, rendered with the import worker's URL options, with scripts allowed and not)
 * and through the fragment sanitiser. Each output is then read as the reader's browser reads it: parse5 (the WHATWG
 * HTML parser) over the document the reader frame is built from, with scripting on and off, and also as a bare
 * fragment. Nothing that can run script, leave the book or rewrite the page may survive, and the output must be
 * stable under re-parsing (a difference would be a mutation-XSS foothold).
 */
import { paths } from '@lectern/core';
import { describe, expect, it } from 'vitest';
import { parseEpub } from '../../src/ingest/epub.ts';
import { renderChapter, sanitizeFragment } from '../../src/ingest/render.ts';
import { ALL_XSS_VECTORS, DOMPURIFY_VECTORS, OWASP_VECTORS, SANITIZE_HTML_VECTORS, type XssVector } from '../fixtures/xss/index.ts';
import { inspect, unsafeParts, XSS_BOOK_ID } from '../fixtures/xss/inspect.ts';
import { buildZip, CONTAINER_XML, xhtml } from './helpers.ts';

const BOOK_ID = XSS_BOOK_ID;
const TITLE_SAFE = 'xss-vectors';
/** How many payloads of the lists the check flags before any sanitising (the rest are plain text or plain markup). */
const RAW_FLAGGED = 423;

/** An EPUB with each vector twice: inside a chapter's body, and as the whole chapter file. */
function vectorsEpub(vectors: XssVector[]): Uint8Array {
  const files: Record<string, string> = { mimetype: 'application/epub+zip', 'META-INF/container.xml': CONTAINER_XML };
  const items: string[] = [];
  const refs: string[] = [];
  vectors.forEach((vector, i) => {
    for (const [kind, content] of [
      ['body', xhtml(`Vector ${i}`, `<p>before</p>${vector.payload}<p>after</p>`)],
      ['file', vector.payload],
    ] as const) {
      const id = `${kind}${i}`;
      files[`OEBPS/text/${id}.xhtml`] = content;
      items.push(`<item id="${id}" href="text/${id}.xhtml" media-type="application/xhtml+xml"/>`);
      refs.push(`<itemref idref="${id}"/>`);
    }
  });
  files['OEBPS/content.opf'] = `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:5a1e0c3e-0000-4000-8000-00000000x55</dc:identifier>
    <dc:title>XSS vectors</dc:title>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>
    ${items.join('\n    ')}
  </manifest>
  <spine>
    ${refs.join('\n    ')}
  </spine>
</package>`;
  return buildZip(files);
}

// ---- the run ----

/** The URL options the import worker renders with (src/ingest/worker.ts). */
const WORKER_OPTIONS = {
  allowScripts: false,
  chapterUrl: (p: string, fragment: string | null) => paths.reader(TITLE_SAFE, BOOK_ID, p) + (fragment ? `#${fragment}` : ''),
  resourceUrl: (p: string) => paths.chapterApi(BOOK_ID, p),
};

interface Failure {
  source: string;
  name: string;
  path: string;
  output: string;
  problems: string[];
}

describe('the sanitisers against the sanitiser projects\' own XSS payload lists', () => {
  it('loads every list', () => {
    expect(DOMPURIFY_VECTORS.length).toBe(218);
    expect(SANITIZE_HTML_VECTORS.length).toBe(91);
    expect(OWASP_VECTORS.length).toBe(325);
    expect(new Set(ALL_XSS_VECTORS.map((v) => v.payload)).size).toBe(631);
  });

  it('has a check that sees what a browser would run', () => {
    for (const unsafe of [
      '<img src=x onerror=alert(1)>',
      '<a href="jav&#x09;ascript:alert(1)">x</a>',
      '<img srcset="a.png 1x, javascript:alert(1) 2x">',
      '<div style="background:\\75 rl(javascript:alert(1))">x</div>',
      '<svg><animate attributeName=href values=javascript:alert(1) /></svg>',
      '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
      '<p>x</p></div><script>alert(1)</script>',
    ]) {
      expect(unsafeParts(unsafe, false), unsafe).not.toEqual([]);
    }
    expect(unsafeParts('<p class="x" style="text-align:center">A <a href="https://example.org">link</a> <img src="data:image/png;base64,AA=="></p>', false)).toEqual([]);
    // Unsanitised, the lists are mostly live: the check flags these many of their payloads as they come.
    expect(ALL_XSS_VECTORS.filter((v) => unsafeParts(v.payload, false).length > 0).length).toBe(RAW_FLAGGED);
  });

  it('checks the tree the reader\'s browser builds: markup is parsed in the context the reader puts it in', () => {
    // Table parts outside a table are dropped by a browser parsing a <div>'s content; parsed bare (a <template>
    // context), they were kept, so the checked tree was not the one the reader frame builds.
    const cases: [string, string][] = [
      ['<tr><td><svg><p><style><img src=x onerror=alert(1)></style></td></tr>', '<svg></svg><p></p>'],
      ['<td><math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', '<math><mtext><table></table></mtext></math>'],
      // In the browser, the <style> is SVG's, whose content is markup: the <img> leaves the <svg>.
      ['<caption><svg></caption><style><img src=x onerror=alert(1)></style>', '<svg></svg><img src="x">'],
      ['<col><colgroup><tr><th>x</th></tr>', 'x'],
    ];
    for (const [payload, expected] of cases) {
      expect(sanitizeFragment(payload), payload).toBe(expected);
      const chapter = renderChapter(payload, { ...WORKER_OPTIONS, chapterFullPath: 'text/c.xhtml', isChapter: () => false }).html;
      for (const html of [sanitizeFragment(payload), chapter]) expect(inspect(html, false), `${payload} -> ${html}`).toEqual([]);
    }
  });

  it('leaves nothing that runs script, in an imported chapter and in a fragment', () => {
    const failures: Failure[] = [];
    const record = (vector: XssVector, path: string, output: string, scriptsAllowed: boolean) => {
      const found = inspect(output, scriptsAllowed);
      if (found.length > 0) failures.push({ source: vector.source, name: vector.name, path, output, problems: found });
    };

    const book = parseEpub(vectorsEpub(ALL_XSS_VECTORS), 'xss-vectors.epub');
    expect(book.chapters).toHaveLength(ALL_XSS_VECTORS.length * 2);
    const chapterPaths = new Set(book.chapters.map((c) => c.fullPath));
    let rendered = 0;
    for (const chapter of book.chapters) {
      const index = Number(/(\d+)\.xhtml$/.exec(chapter.fullPath)![1]);
      const vector = ALL_XSS_VECTORS[index]!;
      for (const allowScripts of [false, true]) {
        const { html } = renderChapter(chapter.rawHtml, {
          ...WORKER_OPTIONS,
          chapterFullPath: chapter.fullPath,
          allowScripts,
          isChapter: (p) => chapterPaths.has(p),
        });
        record(vector, `${chapter.fullPath}${allowScripts ? ' (scripts allowed)' : ''}`, html, allowScripts);
        rendered++;
      }
    }
    for (const vector of ALL_XSS_VECTORS) record(vector, 'sanitizeFragment', sanitizeFragment(vector.payload), false);

    expect(rendered).toBe(ALL_XSS_VECTORS.length * 4);
    expect(failures, JSON.stringify(failures.slice(0, 20), null, 1)).toEqual([]);
    // No time is asserted (timings belong in bench/); the test's own timeout catches a sanitiser that hangs.
  });
});
