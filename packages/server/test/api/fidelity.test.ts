/**
 * Reading fidelity, the importer's half (docs/decisions.md "Reading fidelity: the importer's half"), through the real
 * importer (the worker process) on both engines: the fixture book of test/fixtures/fidelity.ts is imported, then its
 * stored chapters and served files are read. Each behaviour has its positive check and its hostile one beside it.
 * Chromium checks the same book in e2e/fidelity.e2e.ts.
 */
import * as parse5 from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookDetailSchema } from '@lectern/core';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { bookFont, fidelityEpub, FIDELITY_TITLE, STYLED_COLOR } from '../fixtures/fidelity.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';
import { unzipSync } from 'fflate';

interface Element {
  tag: string;
  namespace: string;
  attrs: Record<string, string>;
}

/** Every element a browser builds from the stored HTML, with its namespace and attributes. */
function elements(html: string): Element[] {
  const out: Element[] = [];
  const walk = (node: { childNodes?: unknown[] }) => {
    for (const child of (node.childNodes ?? []) as { tagName?: string; namespaceURI?: string; attrs?: { name: string; value: string; prefix?: string }[]; childNodes?: unknown[] }[]) {
      if (child.tagName) {
        out.push({
          tag: child.tagName.toLowerCase(),
          namespace: child.namespaceURI ?? '',
          attrs: Object.fromEntries((child.attrs ?? []).map((a) => [(a.prefix ? `${a.prefix}:` : '') + a.name.toLowerCase(), a.value])),
        });
      }
      walk(child);
    }
  };
  walk(parse5.parseFragment(html));
  return out;
}

const byId = (html: string, id: string) => elements(html).find((e) => e.attrs.id === id);

/** Nothing of the hostile variants survives: no script, handler, javascript: or outside URL, no foreign HTML. */
function expectInert(html: string): void {
  for (const e of elements(html)) {
    expect(['script', 'iframe', 'foreignobject', 'annotation-xml', 'maction', 'animate', 'set', 'style', 'link'], `<${e.tag}>`).not.toContain(e.tag);
    for (const [name, value] of Object.entries(e.attrs)) {
      expect(name.startsWith('on'), `${e.tag}[${name}]`).toBe(false);
      expect(value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase(), `${e.tag}[${name}]`).not.toMatch(/javascript:|vbscript:|evil\.example|expression\(|binding/);
    }
  }
  expect(html).not.toContain('__pwned');
}

describe.each(ENGINES)('reading fidelity on %s', (engine) => {
  let t: TestApp;
  let bookId: string;
  let chapters: { full_path: string; label: string; content: string; stylesheets: string; media_type: string }[];
  const client = () => new TestClient(t.lectern.app);
  const file = (path: string) => client().get(`/api/v1/book/${bookId}/chapter/${path}?download=1`);
  const chapter = (path: string) => chapters.find((c) => c.full_path === path)!;

  beforeAll(async () => {
    t = await startTestApp(engine);
    const imported = await t.lectern.services.importer.importBytes(fidelityEpub(), 'fidelity.epub');
    expect(imported.title).toBe(FIDELITY_TITLE);
    bookId = imported.book_id;
    chapters = await t.lectern.db.kysely
      .selectFrom('chapters')
      .innerJoin('titles', 'titles.id', 'chapters.title_id')
      .where('titles.book_id', '=', bookId)
      .select(['chapters.full_path', 'chapters.label', 'chapters.content', 'chapters.stylesheets', 'chapters.media_type'])
      .orderBy('chapters.item_order')
      .execute();
  });
  afterAll(() => t.close());

  it('tells the reader which way the pages turn: the spine\'s page-progression-direction', async () => {
    const ltr = await client().post('/nest/epub/block/', { book_id: bookId, hrefs: 'text/styles.xhtml' });
    expect(ltr.json()[0].page_progression).toBe('ltr');
    const rtlBook = minimalEpub3({
      'OEBPS/content.opf': new TextDecoder()
        .decode(unzipSync(minimalEpub3())['OEBPS/content.opf'])
        .replace('<spine>', '<spine page-progression-direction="rtl">')
        .replace('urn:uuid:5a1e0c3e-0000-4000-8000-000000000001', 'urn:uuid:5a1e0c3e-0000-4000-8000-0000000000aa'),
    });
    const imported = await t.lectern.services.importer.importBytes(rtlBook, 'rtl.epub');
    const rtl = await client().post('/nest/epub/block/', { book_id: imported.book_id, hrefs: 'text/chapter 1.xhtml' });
    expect(rtl.json()[0].page_progression).toBe('rtl');
  });

  it("gives the reader the class, id and style of the chapter's own html and body, checked", async () => {
    const expected = {
      html: { class: 'book-root' }, // lectern-paged is the reader's own class: never the book's to set
      body: { class: 'chapter-body', id: 'styles-body', style: 'word-spacing: 1px' },
    };
    const [reader] = await signedInSubscribers(t.lectern, ['root@example.com']);
    const block = await reader.post('/nest/epub/block/', { book_id: bookId, hrefs: 'text/styles.xhtml' });
    expect(block.json()[0].root_attributes).toEqual(expected);
    const answer = await reader.get(`/api/v1/book/${bookId}/chapter/text/styles.xhtml`);
    expect(answer.json().root_attributes).toEqual(expected);
    const plain = await reader.post('/nest/epub/block/', { book_id: bookId, hrefs: 'text/equations.xhtml' });
    expect(plain.json()[0].root_attributes).toBeNull();
  });

  it('keeps the print pages and the landmarks of the navigation document, for "go to page" and the start', async () => {
    const toc = await client().get(`/nest/epub/toc/?book_id=${bookId}`);
    expect(toc.statusCode).toBe(200);
    const body = toc.json();
    expect(body.page_list.map((p: { label: string; href: string }) => [p.label, p.href])).toEqual([
      ['i', 'text/styles.xhtml'],
      ['1', 'text/equations.xhtml'],
      ['7', 'text/notes.xhtml#later'],
    ]);
    expect(body.page_list[2].url).toMatch(/\/text\/notes\.xhtml#later$/);
    expect(body.landmarks).toEqual([expect.objectContaining({ type: 'bodymatter', label: 'Start of the book', href: 'text/styles.xhtml' })]);
    // the contents themselves hold neither
    expect(JSON.stringify(body.items)).not.toContain('Start of the book');
  });

  it('keeps the reading order: an image page, an SVG document, a chapter twice, a foreign item through its fallbacks', () => {
    expect(chapters.map((c) => [c.full_path, c.label])).toEqual([
      ['text/styles.xhtml', 'Styles'],
      ['text/equations.xhtml', 'Equations'],
      ['images/plate.png.xhtml', 'Plate'],
      ['images/diagram.svg', 'Diagram'],
      ['text/interlude.xhtml', 'Interlude'],
      ['text/rtl.xhtml', 'Right to left'],
      ['text/interlude~2.xhtml', 'Interlude'],
      ['text/fallback.xhtml', 'Fallback'],
      ['text/notes.xhtml', 'Notes'],
    ]);
    // The image page shows the image, served from the book.
    const img = elements(chapter('images/plate.png.xhtml').content).find((e) => e.tag === 'img');
    expect(img?.attrs.src).toBe(`/api/v1/book/${bookId}/chapter/images/plate.png`);
    // The SVG document is the chapter, its script and handler gone.
    const diagram = chapter('images/diagram.svg').content;
    expect(elements(diagram).find((e) => e.attrs.id === 'diagram-rect')?.namespace).toBe('http://www.w3.org/2000/svg');
    expectInert(diagram);
    expect(chapter('text/interlude~2.xhtml').content).toBe(chapter('text/interlude.xhtml').content);
    expect(chapter('text/fallback.xhtml').content).toContain('fallback-text');
    // footnotes keep what marks them: epub:type as data-epub-type, DPUB-ARIA roles as they are
    const notes = chapter('text/notes.xhtml').content;
    expect(notes).toContain('data-epub-type="noteref"');
    expect(notes).toContain('role="doc-noteref"');
    expect(notes).toContain('role="doc-footnote"');
    expect(elements(notes).find((e) => e.attrs.id === 'hidden-para')?.attrs.hidden).toBe('hidden');
    // sound always shows its controls, the book's file served from the book
    const audio = elements(notes).find((e) => e.tag === 'audio');
    expect(audio?.attrs).toMatchObject({ controls: '', preload: 'metadata', src: `/api/v1/book/${bookId}/chapter/media/tone.wav` });
  });

  it('keeps inline <style> as a sanitised stylesheet of its own, in the book layer, in document order', async () => {
    const sheets = JSON.parse(chapter('text/styles.xhtml').stylesheets) as string[];
    expect(sheets).toEqual([`/api/v1/book/${bookId}/chapter/css/book.css`, `/api/v1/book/${bookId}/chapter/text/styles.xhtml.style-1.css`]);
    const inline = await client().get(sheets[1]!);
    expect(inline.statusCode).toBe(200);
    expect(inline.headers['content-type']).toMatch(/^text\/css/);
    expect(inline.body).toMatch(/^@layer book \{/);
    expect(inline.body).toContain(`color: ${STYLED_COLOR}`);
    expect(inline.body).toContain('writing-mode: vertical-rl');
    expect(inline.body).toContain('text-combine-upright: all');
    expect(inline.body).toContain('hyphens: auto');
    // Hostile: the @import of another site goes; body { display: none } stays a book rule, which the reader's
    // !important display rule outranks (the frame's layers).
    expect(inline.body).not.toMatch(/evil\.example|@import|-epub-/);
  });

  it('sanitises the linked stylesheets: EPUB properties mapped, fonts and imports to the book, nothing else', async () => {
    const css = (await file('css/book.css')).body;
    expect(css).toContain(`@import url("/api/v1/book/${bookId}/chapter/css/more.css");`);
    expect(css).toContain(`src: url("/api/v1/book/${bookId}/chapter/fonts/idpf.ttf") format("truetype")`);
    expect(css).toContain(`src: url("/api/v1/book/${bookId}/chapter/fonts/adobe.ttf")`);
    for (const mapped of ['text-align-last: center', 'text-emphasis-style: filled circle', 'text-underline-position: under', 'line-break: strict', 'word-break: break-all']) {
      expect(css).toContain(mapped);
    }
    expect((await file('css/more.css')).body).toContain('letter-spacing: 3px');
    // Hostile: url(javascript:), expression(), -moz-binding, behavior, http: imports and fonts, position: fixed, the reader's root.
    expect(css).not.toMatch(/javascript|expression|binding|behavior|evil\.example|Lectern Remote|position: fixed|lectern-root|@namespace|@charset/);
    expect(css).toMatch(/\.fixed \{\s*position: static;/);
  });

  it('keeps style="" through the same sanitiser, without !important', () => {
    const html = chapter('text/styles.xhtml').content;
    expect(byId(html, 'inline')?.attrs.style).toBe('font-weight: 700; text-emphasis: dot; color: rgb(20, 100, 40)');
    expect(byId(html, 'hostile-css')?.attrs.style).toBe('position: static');
    expectInert(html);
  });

  it('restores IDPF- and Adobe-obfuscated fonts and serves every font with a font type', async () => {
    const font = bookFont();
    for (const [path, type] of [['fonts/plain.ttf', 'font/ttf'], ['fonts/idpf.ttf', 'font/ttf'], ['fonts/adobe.ttf', 'application/vnd.ms-opentype']] as const) {
      const res = await file(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type'], path).toBe(type);
      expect(Buffer.compare(res.rawPayload, Buffer.from(font)), path).toBe(0);
    }
  });

  it('keeps MathML and inline SVG through their allow-lists; picture and images inside SVG lead to the book', () => {
    const html = chapter('text/equations.xhtml').content;
    const all = elements(html);
    const math = byId(html, 'quadratic');
    expect(math?.namespace).toBe('http://www.w3.org/1998/Math/MathML');
    expect(all.filter((e) => e.namespace === 'http://www.w3.org/1998/Math/MathML').map((e) => e.tag)).toEqual(expect.arrayContaining(['mfrac', 'msqrt', 'msup', 'mi', 'mo', 'mn']));
    expect(byId(html, 'svg-rect')).toMatchObject({ namespace: 'http://www.w3.org/2000/svg', attrs: { fill: 'url("#fade")' } });
    expect(all.find((e) => e.tag === 'use' && e.attrs['xlink:href'] === '#dot')).toBeTruthy();
    expect(byId(html, 'svg-image')?.attrs['xlink:href']).toBe(`/api/v1/book/${bookId}/chapter/images/plate.png`);
    expect(all.find((e) => e.tag === 'source')?.attrs.srcset).toBe(`/api/v1/book/${bookId}/chapter/images/plate.png 1x`);
    // A path that climbs above the book's root is clamped to it.
    expect(byId(html, 'climbing')?.attrs.src).toBe(`/api/v1/book/${bookId}/chapter/images/plate.png`);
  });

  it('lets nothing of hostile MathML or SVG through: maction shows its first child, hrefs and handlers go', () => {
    const html = chapter('text/equations.xhtml').content;
    expectInert(html);
    const hostileMath = byId(html, 'math-hostile')!;
    expect(hostileMath.attrs.href).toBeUndefined();
    expect(html).toContain('<mtext>shown</mtext>');
    expect(byId(html, 'svg-hostile')?.attrs.onload).toBeUndefined();
    expect(byId(html, 'svg-js-link')?.attrs['xlink:href']).toBeUndefined();
    expect(elements(html).filter((e) => e.tag === 'use').map((e) => e.attrs.href ?? e.attrs['xlink:href'])).toEqual(['#dot', undefined]);
  });

  it('records the dir and language of the title and of each creator', async () => {
    const k = t.lectern.db.kysely;
    const title = await k.selectFrom('titles').select(['id', 'title_dir', 'title_lang']).where('book_id', '=', bookId).executeTakeFirstOrThrow();
    // The package's xml:lang is the default for its metadata; a creator's own dir and xml:lang win.
    expect(title).toMatchObject({ title_dir: null, title_lang: 'en' });
    const authors = await k.selectFrom('title_authors').select(['name', 'dir', 'lang']).where('title_id', '=', title.id).orderBy('position').execute();
    expect(authors).toEqual([
      { name: 'Lectern Tests', dir: null, lang: 'en' },
      { name: 'كاتب الاختبار', dir: 'rtl', lang: 'ar' },
    ]);
    // The book's page gets them: the title page sets each on its own element.
    const detail = bookDetailSchema.parse((await client().get(`/api/v1/book/${bookId}/`)).json());
    expect(detail).toMatchObject({ title_dir: null, title_lang: 'en' });
    expect(detail.author_entries).toEqual([
      { name: 'Lectern Tests', dir: null, lang: 'en' },
      { name: 'كاتب الاختبار', dir: 'rtl', lang: 'ar' },
    ]);
  });

  it('keeps the content document\'s dir and language on the chapter', () => {
    const html = chapter('text/rtl.xhtml').content;
    expect(elements(html)[0]).toMatchObject({ tag: 'div', attrs: { dir: 'rtl', lang: 'ar' } });
  });
});
