/**
 * The parts of reading fidelity (docs/decisions.md "Reading fidelity: the importer's half") that are rules of their
 * own: the CSS sanitiser against hostile CSS, the font de-obfuscation keys, XHTML that only the HTML parser can read,
 * zip entries Lectern cannot inflate and split archives. The whole book goes through the real importer in
 * test/api/fidelity.test.ts.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { unzipSync, zipSync } from 'fflate';
import * as parse5 from 'parse5';
import postcss from 'postcss';
import { describe, expect, it } from 'vitest';
import { bookCssRewriter, sanitizeStyleAttribute, sanitizeStylesheet } from '../../src/ingest/css.ts';
import { parseEpub } from '../../src/ingest/epub.ts';
import { xmlProblem } from '../../src/ingest/markup.ts';
import { deobfuscate } from '../../src/ingest/obfuscation.ts';
import { recheckChapterHtml, renderChapter, sanitizeFragment } from '../../src/ingest/render.ts';
import { IngestError } from '../../src/ingest/types.ts';
import { epubBook, minimalEpub3, PNG, xhtml } from './helpers.ts';

/** jsdom (the web tests' DOM, no type declarations installed): only its selector engine is used here. */
type SelectorDom = { window: { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } } };
const { JSDOM } = createRequire(import.meta.url)('jsdom') as { JSDOM: new (html: string) => SelectorDom };

const RESOURCES = new Set(['images/a.png', 'fonts/f.woff2', 'css/other.css']);
const rewrite = bookCssRewriter('text/ch.xhtml', (p) => RESOURCES.has(p), (p) => `/files/${p}`);
const sheet = (css: string) => sanitizeStylesheet(css, rewrite).css;

describe('the CSS sanitiser', () => {
  it.each([
    ['p { background: url(javascript:alert(1)) }'],
    ['p { background: url("  JaVa\tScRiPt:alert(1)") }'],
    ['p { background: u\\72l(javascript:alert(1)) }'],
    ['p { background: \\75 rl(javascript:alert(1)) }'],
    ['p { width: expression(alert(1)) }'],
    ['p { width: ex\\70 ression(alert(1)) }'],
    ['p { -moz-binding: url(evil.xml#x) }'],
    ['p { behavior: url(evil.htc) }'],
    ['p { background: url(data:text/html,<script>alert(1)</script>) }'],
    ['p { background: url(https://evil.example/x.png) }'],
    ['p { background: url(//evil.example/x.png) }'],
    ['p { background: url(file:///etc/passwd) }'],
    ['p { background-image: image-set("https://evil.example/x.png" 1x) }'],
    ['p { background-image: -webkit-image-set("javascript:alert(1)" 1x) }'],
    ['@import url(https://evil.example/x.css);'],
    ['@import "javascript:alert(1)";'],
    ['@import url(../images/a.png);'],
    ['@font-face { font-family: x; src: url(https://evil.example/f.woff2) }'],
    ['p { background: url(../text/ch.xhtml) }'],
    ['p { color: red; } } body { background: url(javascript:alert(1)) }'],
    ['@media screen { p { background: url(javascript:alert(1)) } }'],
    ['@namespace url(javascript:alert(1)); @document url-prefix() { p { color: red } }'],
    ['p { --x: url(javascript:alert(1)); background: var(--x) }'],
    ['p { background: url(javascript:alert(1)) !important; }'],
  ])('drops %s', (css) => {
    const out = sheet(css);
    expect(out.replace(/\s/g, '').toLowerCase()).not.toMatch(/javascript|expression|binding|behavior|evil\.example|data:text|file:|ch\.xhtml|a\.png\)/);
  });

  it('keeps what books use, mapping EPUB and prefixed properties to the standard ones', () => {
    const out = sheet(`@font-face { font-family: "F"; src: url(../fonts/f.woff2) format("woff2"); }
      @import url(../css/other.css);
      .v { -epub-writing-mode: vertical-rl; -webkit-text-orientation: upright; -epub-text-combine: horizontal; }
      .e { -epub-text-emphasis: filled sesame red; -epub-hyphens: auto; -epub-line-break: strict; -epub-word-break: keep-all; }
      .l { -epub-text-align-last: justify; -epub-text-underline-position: under left; }
      .b { background: #fff url("../images/a.png") no-repeat; fill: url(#g); content: "\\201C"; position: fixed; font-size: 12pt; }
      @media (max-width: 30em) { .v { writing-mode: horizontal-tb } }`);
    expect(out).toMatch(/^@import url\("\/files\/css\/other\.css"\);\n@layer book \{/);
    for (const kept of [
      'src: url("/files/fonts/f.woff2") format("woff2")',
      'writing-mode: vertical-rl', 'text-orientation: upright', 'text-combine-upright: all', 'text-emphasis: filled sesame red',
      'hyphens: auto', 'line-break: strict', 'word-break: keep-all', 'text-align-last: justify', 'text-underline-position: under left',
      'background: #fff url("/files/images/a.png") no-repeat', 'fill: url("#g")', 'content: "\\201C"', 'position: static',
      'font-size: calc(12pt * var(--lectern-font-size, 1))', '@media (max-width: 30em)',
    ]) {
      expect(out).toContain(kept);
    }
  });

  // W3C epub-tests css-epub-text-combine-horizontal and css-epub-text-transform (docs/conformance.md)
  it("maps EPUB 3.3's -epub-text-combine-horizontal and text-transform: -epub-fullwidth to the standard properties", () => {
    expect(sanitizeStyleAttribute('-epub-text-combine-horizontal: all; writing-mode: vertical-lr', rewrite)).toBe('text-combine-upright: all; writing-mode: vertical-lr');
    expect(sanitizeStyleAttribute('-epub-text-combine-horizontal: none', rewrite)).toBe('text-combine-upright: none');
    expect(sanitizeStyleAttribute('-epub-text-combine-horizontal: bogus', rewrite)).toBe('');
    expect(sanitizeStyleAttribute('writing-mode: vertical-lr; text-transform: -epub-fullwidth;', rewrite)).toBe('writing-mode: vertical-lr; text-transform: full-width');
    expect(sanitizeStyleAttribute('text-transform: uppercase -EPUB-fullwidth', rewrite)).toBe('text-transform: uppercase full-width');
    const out = sheet('.tcy { -epub-text-combine-horizontal: all; } .fw { text-transform: -epub-fullwidth; }');
    expect(out).toContain('text-combine-upright: all');
    expect(out).toContain('text-transform: full-width');
  });

  // W3C epub-tests pub-foreign_image (docs/conformance.md)
  it('serves the core image on the manifest fallback chain in place of an image browsers do not show', () => {
    const psd = Uint8Array.from([...Buffer.from('8BPS'), 0, 1, 0, 0]);
    const book = parseEpub(
      epubBook({
        identifier: 'urn:uuid:foreign-image',
        title: 'Foreign image',
        chapters: [{ path: 'ch.xhtml', label: 'Star', body: '<img src="star.psd" alt="a star"/><img src="lone.tiff" alt="no fallback"/>' }],
        manifest: [
          '<item id="psd" href="star.psd" media-type="image/psd" fallback="tiff"/>',
          '<item id="tiff" href="star.tiff" media-type="image/tiff" fallback="png"/>',
          '<item id="png" href="star.png" media-type="image/png"/>',
          '<item id="lone" href="lone.tiff" media-type="image/tiff"/>',
        ],
        files: { 'star.psd': psd, 'star.tiff': psd, 'star.png': PNG, 'lone.tiff': psd },
      }),
      'foreign-image.epub',
    );
    const byPath = new Map(book.resources.map((r) => [r.fullPath, r]));
    expect(byPath.get('star.psd')).toMatchObject({ mediaType: 'image/png', data: PNG });
    expect(byPath.get('star.tiff')).toMatchObject({ mediaType: 'image/png', data: PNG });
    expect(byPath.get('star.png')).toMatchObject({ mediaType: 'image/png', data: PNG });
    // without a fallback the file stays as it is
    expect(byPath.get('lone.tiff')).toMatchObject({ mediaType: 'image/tiff', data: psd });
    expect(book.warnings).toContain('star.psd is image/psd, which browsers do not show; its fallback star.png is served in its place');
  });

  // W3C epub-tests cnt-svg-css, cnt-svg-support, cnt-svg-embedded (docs/conformance.md)
  it("reads a <style>'s CSS inside a CDATA section, in the head and in an SVG's defs", () => {
    const book = parseEpub(
      epubBook({
        identifier: 'urn:uuid:cdata-styles',
        title: 'CDATA styles',
        chapters: [
          {
            path: 'ch.xhtml',
            label: 'Styles',
            head: '<style type="text/css"><![CDATA[ p.x { color: green } ]]></style>',
            body: `<p class="x">Green.</p><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><style type="text/css">
              <![CDATA[ .fil0 { fill: red } ]]></style></defs><path class="fil0" d="M0 0h10v10z"/></svg>`,
          },
        ],
      }),
      'cdata.epub',
    );
    const chapter = book.chapters[0]!;
    const rendered = renderChapter(chapter.rawHtml, {
      chapterFullPath: chapter.fullPath,
      allowScripts: false,
      chapterUrl: (p) => `/read/${p}`,
      resourceUrl: (p) => `/files/${p}`,
      isChapter: (p) => p === chapter.fullPath,
      inlineStyleUrl: (n) => `/files/${chapter.fullPath}.style-${n + 1}.css`,
    });
    expect(rendered.inlineStyles).toHaveLength(2);
    expect(rendered.inlineStyles.join('\n')).toMatch(/p\.x\s*\{\s*color: green/);
    expect(rendered.inlineStyles.join('\n')).toMatch(/\.fil0\s*\{\s*fill: red/);
    expect(rendered.inlineStyles.join('\n')).not.toContain('CDATA');
  });

  it('reads style="" the same way, without !important', () => {
    expect(sanitizeStyleAttribute('color: red !important; -epub-writing-mode: vertical-rl; background: url(javascript:x)', rewrite)).toBe(
      'color: red; writing-mode: vertical-rl',
    );
    expect(sanitizeStyleAttribute('position:fixed;inset:0;z-index:99', rewrite)).toBe('position: static; inset: 0; z-index: 99');
    expect(sanitizeStyleAttribute('position: absolute; top: 0', rewrite)).toBe('position: static; top: 0');
    expect(sanitizeStyleAttribute('position: relative; top: -0.4em', rewrite)).toBe('position: relative; top: -0.4em');
  });

  // real-books bug 5: The Waste Land's dedication indent
  describe('epub:type selectors (the importer renames epub:type to data-epub-type)', () => {
    const OPS = '@namespace epub "http://www.idpf.org/2007/ops";';
    it.each([
      [`${OPS} *[epub|type~='dedication'] { padding-left: 2em }`, "*[data-epub-type~='dedication']"],
      // any prefix the sheet binds to the ops namespace, url() or string, every operator, flags kept
      ['@namespace ops url(http://www.idpf.org/2007/ops); p[ops|type|="note" i] { color: red }', 'p[data-epub-type|="note" i]'],
      [`${OPS} [ epub|type ^= x ] { color: red }`, '[data-epub-type ^= x ]'],
      [`${OPS} [epub|type] { color: red }`, '[data-epub-type]'],
      // a value with quotes, escapes and brackets survives as written
      [`${OPS} [epub|type='a\\'] b"]'] { color: red }`, `[data-epub-type='a\\'] b"]']`],
      [`${OPS} [epub|type="\\64 edication"] { color: red }`, '[data-epub-type="\\64 edication"]'],
      // an escaped prefix or name is the same identifier
      [`${OPS} [e\\70 ub|t\\ype=x] { color: red }`, '[data-epub-type=x]'],
      // inside :not() and in a list; the other items stay
      [`${OPS} section:not([epub|type~=chapter]) > p, h1 { color: red }`, 'section:not([data-epub-type~=chapter]) > p, h1'],
      // nested in @media
      [`${OPS} @media (min-width: 30em) { [epub|type~=dedication] { color: red } }`, '[data-epub-type~=dedication]'],
      // HTML-serialised books' form: the attribute's literal name, no namespace
      ['[epub\\:type~="footnote"] { color: red }', '[data-epub-type~="footnote"]'],
      // type in any namespace: HTML's own type attribute and EPUB's
      ['[*|type~=dedication] { color: red }', ':is([*|type~=dedication],[data-epub-type~=dedication])'],
    ])('%s', (css, selector) => {
      const out = sheet(css);
      expect(out).toContain(`${selector} {`);
      expect(out).not.toMatch(/epub\||ops\||@namespace|epub\\:/);
    });

    it.each([
      // no @namespace: the prefix means nothing
      "[epub|type~='dedication'] { color: red }",
      // a prefix bound to another namespace, or bound to ops and then rebound
      '@namespace epub "http://www.idpf.org/2007/ops#"; [epub|type~=dedication] { color: red }',
      '@namespace epub "http://example.com/evil"; [epub|type~=dedication] { color: red }',
      `${OPS} @namespace epub "http://example.com/evil"; [epub|type~=dedication] { color: red }`,
      // prefixes are case-sensitive; an ops attribute other than type
      `${OPS} [EPUB|type~=dedication] { color: red }`,
      `${OPS} [epub|prefix] { color: red }`,
      // an @namespace after a style rule is ignored by browsers
      `p { margin: 0 } ${OPS} [epub|type~=dedication] { color: red }`,
      // a namespaced element
      `${OPS} @namespace svg "http://www.w3.org/2000/svg"; svg|rect, epub|p { color: red }`,
    ])('drops %s', (css) => {
      const out = sheet(css);
      expect(out).not.toContain('color: red');
      expect(out).not.toMatch(/\|(?!\|)/);
    });

    it('keeps the other items of a list, and what only looks like a prefix', () => {
      const out = sheet(`${OPS} svg|rect, [epub|type~=x], [title="svg|rect"], [type|="en"], [|lang], *|p, td || col, p.a\\|b { color: red }`);
      expect(out).toContain('[data-epub-type~=x], [title="svg|rect"], [type|="en"], [|lang], *|p, td || col, p.a\\|b {');
      expect(out).not.toContain('svg|rect,');
    });

    it("matches the chapter's epub:type in an inline <style>, as the reader's browser reads it", () => {
      const rendered = renderChapter(
        `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><style type="text/css">${OPS}
          *[epub|type~='dedication'] { padding-left: 2em } [*|type~=dedication] { color: green }</style></head>
          <body><section epub:type="dedication frontmatter"><p>For Ezra Pound</p></section><p epub:type="bodymatter">Text</p></body></html>`,
        { chapterFullPath: 'text/ch.xhtml', allowScripts: false, chapterUrl: (p) => `/read/${p}`, resourceUrl: (p) => `/files/${p}`, isChapter: (p) => p === 'text/ch.xhtml', inlineStyleUrl: (n) => `/files/s${n}.css` },
      );
      const document = new JSDOM(rendered.html).window.document;
      const selectors: string[] = [];
      postcss.parse(rendered.inlineStyles.join('\n')).walkRules((rule) => void selectors.push(rule.selector));
      expect(selectors).toEqual(["*[data-epub-type~='dedication']", ':is([*|type~=dedication],[data-epub-type~=dedication])']);
      for (const selector of selectors) expect(Array.from(document.querySelectorAll(selector), (e) => e.textContent)).toEqual(['For Ezra Pound']);
    });
  });

  it('keeps only typography in HTML people write (annotations), shown in the app\'s own pages', () => {
    expect(sanitizeFragment('<p style="text-align: center; position: relative; top: -900px; z-index: 9; width: 100vw; background: url(/api/v1/x)">x</p>')).toBe(
      '<p style="text-align: center">x</p>',
    );
  });
});

/** SVG and MathML vectors (mutation XSS and plain): none may leave anything that runs. */
const FOREIGN_VECTORS = [
  '<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>',
  '<math><mi><mglyph><svg><mtext><style><img src=x onerror=alert(1)></style></mtext></svg></mglyph></mi></math>',
  '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
  '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=alert(1)&gt;">',
  '<svg><a><animate attributeName=href values=javascript:alert(1) /><text x=20 y=20>Click</text></a></svg>',
  '<svg><set attributeName="onload" to="alert(1)"/></svg>',
  '<svg><use href="data:image/svg+xml;base64,PHN2ZyBpZD0neCcvPg==#x"/></svg>',
  '<math><maction actiontype="statusline#http://evil.example" xlink:href="javascript:alert(1)">CLICK<mtext>javascript:alert(1)</mtext></maction></math>',
  '<svg><style>@import url(http://evil.example/x.css); rect { fill: url(javascript:alert(1)) }</style><rect/></svg>',
  '<svg><image href="javascript:alert(1)"/><image xlink:href="data:text/html,x"/></svg>',
  '<svg><a href="javascript:alert(1)"><rect width=10 height=10 /></a><a xlink:href=" jav&#x09;ascript:alert(1)"><circle r=5 /></a></svg>',
  '<math href="javascript:alert(1)">CLICK</math>',
  '<svg><script xlink:href="data:,alert(1)"/></svg>',
  '<svg><handler type="text/javascript">alert(1)</handler></svg>',
  '<svg><feImage href="javascript:alert(1)"/><filter id=f><feImage xlink:href="https://evil.example/x.png"/></filter></svg>',
  '<svg><discard onbegin="alert(1)"/><animate onbegin="alert(1)" attributeName="x" dur="1s"/></svg>',
  '<svg><rect fill="url(javascript:alert(1))" style="fill: url(https://evil.example/x.svg#p)"/></svg>',
  '<svg><textPath href="https://evil.example/p.svg#p">x</textPath><linearGradient href="other.svg#g"/></svg>',
  '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(1)></annotation-xml></math>',
  '<math><semantics><mi>x</mi><annotation-xml encoding="application/xhtml+xml"><iframe src="javascript:alert(1)"></iframe></annotation-xml></semantics></math>',
  '<svg><svg onload=alert(1)><math><mi xlink:href=javascript:alert(1)>x</mi></math></svg></svg>',
  '<p style="background-image: url(javascript:alert(1)); behavior: url(x.htc)">x</p>',
];

function inert(html: string): string[] {
  const problems: string[] = [];
  for (const scriptingEnabled of [true, false]) {
    const walk = (node: { childNodes?: unknown[] }) => {
      for (const child of (node.childNodes ?? []) as { tagName?: string; attrs?: { name: string; value: string; prefix?: string }[]; childNodes?: unknown[] }[]) {
        const tag = child.tagName?.toLowerCase();
        // An <img> may stay (the HTML parser breaks out of foreign content for it); its handlers may not (below).
        if (tag && ['script', 'iframe', 'style', 'foreignobject', 'animate', 'set', 'handler', 'discard', 'annotation-xml', 'mglyph', 'maction', 'feimage'].includes(tag)) problems.push(`<${tag}>`);
        for (const a of child.attrs ?? []) {
          const value = a.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
          if (a.name.toLowerCase().startsWith('on')) problems.push(`${tag}[${a.name}]`);
          if (/javascript:|vbscript:|evil\.example|data:text|data:,|other\.svg|behavior/.test(value)) problems.push(`${tag}[${a.name}=${a.value}]`);
        }
        walk(child);
      }
    };
    walk(parse5.parseFragment(html, { scriptingEnabled }));
  }
  return problems;
}

describe('SVG and MathML against known vectors', () => {
  it.each(FOREIGN_VECTORS)('%s', (vector) => {
    const chapter = renderChapter(`<html><body><p>before</p>${vector}<p>after</p></body></html>`, {
      chapterFullPath: 'text/ch.xhtml',
      allowScripts: false,
      chapterUrl: (p) => `/read/${p}`,
      resourceUrl: (p) => `/files/${p}`,
      isChapter: (p) => p.endsWith('.xhtml'),
    }).html;
    expect(inert(chapter), chapter).toEqual([]);
    expect(recheckChapterHtml(chapter), 'stable').toBe(chapter);
    const fragment = sanitizeFragment(vector);
    expect(inert(fragment), fragment).toEqual([]);
    expect(sanitizeFragment(fragment), 'stable').toBe(fragment);
  });
});

describe('font de-obfuscation', () => {
  const font = new Uint8Array(3000).map((_, i) => (i * 7) % 251);

  it('IDPF: the first 1040 bytes XOR the SHA-1 of the identifier without whitespace', () => {
    const key = createHash('sha1').update('urn:uuid:1234').digest();
    const obfuscated = font.map((b, i) => (i < 1040 ? b ^ key[i % 20]! : b));
    expect(deobfuscate(obfuscated, 'idpf', ' urn:uuid:12\n34\t')).toEqual(font);
  });

  it('Adobe: the first 1024 bytes XOR the 16 bytes of the UUID', () => {
    const key = Buffer.from('0f1d2c3b4a5946788796a5b4c3d2e1f0', 'hex');
    const obfuscated = font.map((b, i) => (i < 1024 ? b ^ key[i % 16]! : b));
    expect(deobfuscate(obfuscated, 'adobe', 'urn:uuid:0f1d2c3b-4a59-4678-8796-a5b4c3d2e1f0')).toEqual(font);
    expect(deobfuscate(obfuscated, 'adobe', 'isbn:123')).toBeNull();
  });
});

function expectIngestError(run: () => unknown, message: RegExp): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(IngestError);
  expect((error as Error).message).toMatch(message);
}

describe('books the strict rules would refuse', () => {
  it('reads malformed XHTML with the HTML parser and says so', () => {
    expect(xmlProblem(xhtml('x', '<p>a<br>b</p><p>c&nbsp;d</p>'))).toBe('<br> is never closed');
    expect(xmlProblem(xhtml('x', '<p>c&nbsp;d</p>'))).toBe('&nbsp; is not an XML entity');
    expect(xmlProblem(xhtml('x', '<p::p>a name with two colons</p::p>'))).toBe('<p::p> is not a valid XML name');
    expect(xmlProblem(xhtml('x', '<epub:switch>one colon</epub:switch>'))).toBeNull();
    // every place of the broken item is marked for the reader's notice; an XHTML 1.1 doctype's &nbsp; is not
    const marked = parseEpub(minimalEpub3({ 'OEBPS/text/ch2.xhtml': xhtml('Chapter Two', '<p>The<br>end.') }), 'x.epub');
    expect(marked.chapters.find((c) => c.fullPath === 'text/ch2.xhtml')?.markupError).toBe('<br> is never closed');
    const dtd = xhtml('Chapter Two', '<p>a&nbsp;b</p>').replace('<!DOCTYPE html>', '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">');
    expect(parseEpub(minimalEpub3({ 'OEBPS/text/ch2.xhtml': dtd }), 'x.epub').chapters.find((c) => c.fullPath === 'text/ch2.xhtml')?.markupError).toBeUndefined();
    expect(xmlProblem(xhtml('x', '<p>a<br/>b &amp; c</p>', '<link rel="stylesheet" href="a.css"/>'))).toBeNull();
    const book = parseEpub(minimalEpub3({ 'OEBPS/text/ch2.xhtml': xhtml('Chapter Two', '<h1>Two</h1><p id="end">The<br>end.') }), 'x.epub');
    expect(book.warnings).toContain("text/ch2.xhtml is not well-formed XHTML (<br> is never closed); read with the HTML parser's recovery");
    expect(book.chapters.map((c) => c.fullPath)).toContain('text/ch2.xhtml');
  });

  it('refuses an entry compressed with a method Lectern cannot read, naming the book and the entry', () => {
    const data = minimalEpub3();
    // Rewrite the chapter's method (central directory and local header) to bzip2 (12).
    const view = Buffer.from(data);
    const name = Buffer.from('OEBPS/text/ch2.xhtml');
    for (let at = view.indexOf(name); at >= 0; at = view.indexOf(name, at + 1)) {
      if (view.readUInt32LE(at - 46) === 0x02014b50) view.writeUInt16LE(12, at - 46 + 10);
      if (view.readUInt32LE(at - 30) === 0x04034b50) view.writeUInt16LE(12, at - 30 + 8);
    }
    expectIngestError(() => parseEpub(new Uint8Array(view), 'squeezed.epub'), /^squeezed\.epub: the zip entry OEBPS\/text\/ch2\.xhtml is compressed with bzip2 \(zip method 12\), which Lectern cannot read/);
  });

  it('refuses one part of a split archive, naming the book', () => {
    const data = Buffer.from(zipSync({ 'a.txt': new TextEncoder().encode('a') }));
    const end = data.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    data.writeUInt16LE(1, end + 4); // this is disk 2
    expectIngestError(() => parseEpub(new Uint8Array(data), 'part.epub'), /^part\.epub is one part of a split \(multi-part\) zip archive \(part 2\)/);
    const first = Buffer.concat([Buffer.from([0x50, 0x4b, 0x07, 0x08]), Buffer.from(zipSync({ 'a.txt': new Uint8Array(1) })).subarray(0, 40)]);
    expectIngestError(() => parseEpub(new Uint8Array(first), 'part.z01'), /^part\.z01 is one part of a split \(multi-part\) zip archive \(the first part\)/);
  });

  it('clamps a manifest path that climbs above the zip root instead of dropping it', () => {
    const book = parseEpub(
      minimalEpub3({
        'OEBPS/content.opf': `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="u">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="u">x</dc:identifier><dc:title>Climb</dc:title></metadata>
  <manifest><item id="c" href="../../../OEBPS/text/ch2.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="c"/></spine>
</package>`,
      }),
      'climb.epub',
    );
    expect(book.chapters.map((c) => c.fullPath)).toEqual(['text/ch2.xhtml']);
  });
});

describe('page progression (EPUB 3.3 page-progression-direction)', () => {
  const opfOf = (spine: string, language: string) => {
    const base = new TextDecoder().decode(unzipOpf(minimalEpub3()));
    return base.replace('<spine>', spine).replace('<dc:language>en-GB</dc:language>', `<dc:language>${language}</dc:language>`);
  };
  const progression = (spine: string, language: string) =>
    parseEpub(minimalEpub3({ 'OEBPS/content.opf': opfOf(spine, language) }), 'book.epub').pageProgression;

  it('takes the spine\'s direction, and for "default" or none the direction of the book\'s language', () => {
    expect(progression('<spine page-progression-direction="rtl">', 'ja')).toBe('rtl');
    expect(progression('<spine page-progression-direction="ltr">', 'ar')).toBe('ltr');
    expect(progression('<spine page-progression-direction="default">', 'he-IL')).toBe('rtl');
    expect(progression('<spine>', 'fa')).toBe('rtl');
    expect(progression('<spine>', 'en-GB')).toBe('ltr');
  });
});

function unzipOpf(epub: Uint8Array): Uint8Array {
  return unzipSync(epub)['OEBPS/content.opf']!;
}
