/**
 * Fixed layout (docs/decisions.md "Fixed layout and flow"), the importer's half, through the real importer (the worker
 * process) on both engines: the fixture of test/fixtures/fixed-layout.ts is imported and what it recorded is read back
 * from the database and from the reader's calls (the chapter, the archive item, the contents). Its hostile variant
 * keeps nothing that runs. Chromium reads the same books in e2e/fixed-layout.e2e.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { fixedLayoutEpub, FIXED_HOSTILE_TITLE, FIXED_TITLE, OVERLAY_WORDS } from '../fixtures/fixed-layout.ts';
import { fidelityEpub } from '../fixtures/fidelity.ts';

describe.each(ENGINES)('fixed layout on %s', (engine) => {
  let t: TestApp;
  let bookId: string;
  let hostileId: string;
  let reflowableId: string;
  const client = () => new TestClient(t.lectern.app);
  const chaptersOf = (id: string) =>
    t.lectern.db.kysely
      .selectFrom('chapters')
      .innerJoin('titles', 'titles.id', 'chapters.title_id')
      .where('titles.book_id', '=', id)
      .select(['chapters.full_path', 'chapters.content', 'chapters.stylesheets', 'chapters.rendition_layout', 'chapters.rendition_spread', 'chapters.rendition_flow', 'chapters.page_spread', 'chapters.viewport_width', 'chapters.viewport_height', 'chapters.align_x_center'])
      .orderBy('chapters.item_order')
      .execute();
  const file = async (id: string, path: string) => (await client().get(`/api/v1/book/${id}/chapter/${path}?download=1`)).body;

  beforeAll(async () => {
    t = await startTestApp(engine);
    const imported = await t.lectern.services.importer.importBytes(fixedLayoutEpub(), 'fixed.epub');
    expect(imported.title).toBe(FIXED_TITLE);
    bookId = imported.book_id;
    const hostile = await t.lectern.services.importer.importBytes(fixedLayoutEpub({ hostile: true }), 'fixed-hostile.epub');
    expect(hostile.title).toBe(FIXED_HOSTILE_TITLE);
    hostileId = hostile.book_id;
    reflowableId = (await t.lectern.services.importer.importBytes(fidelityEpub(), 'fidelity.epub')).book_id;
  });
  afterAll(() => t.close());

  it("records the package's layout, spread, flow and viewport on the title", async () => {
    const title = await t.lectern.db.kysely
      .selectFrom('titles')
      .select(['rendition_layout', 'rendition_spread', 'rendition_flow', 'viewport_width', 'viewport_height'])
      .where('book_id', '=', bookId)
      .executeTakeFirstOrThrow();
    expect(title).toEqual({ rendition_layout: 'pre-paginated', rendition_spread: 'landscape', rendition_flow: 'auto', viewport_width: 600, viewport_height: 800 });
  });

  it('records each page: its side of the spread, its overrides and its size (viewport meta, image size, else the package)', async () => {
    const rows = await chaptersOf(bookId);
    expect(rows.map((r) => [r.full_path, r.rendition_layout, r.rendition_spread, r.rendition_flow, r.page_spread, r.viewport_width, r.viewport_height])).toEqual([
      ['pages/p1.xhtml', 'pre-paginated', 'landscape', 'auto', 'right', 600, 800],
      ['pages/p2.xhtml', 'pre-paginated', 'landscape', 'auto', 'left', 600, 800],
      // an image in the spine: the page is the image's size
      ['images/p3.png.xhtml', 'pre-paginated', 'landscape', 'auto', 'right', 300, 400],
      // its own viewport meta: a double-wide centre page
      ['pages/p4.xhtml', 'pre-paginated', 'landscape', 'auto', 'center', 1200, 800],
      // no viewport meta: the package's rendition:viewport; the itemref's overrides over the package's defaults
      ['pages/p5.xhtml', 'pre-paginated', 'none', 'scrolled-doc', null, 600, 800],
    ]);
    // rendition:align-x-center on p5's itemref only (0043)
    expect(rows.map((r) => r.align_x_center)).toEqual([0, 0, 0, 0, 1]);
  });

  it('keeps absolute positioning on fixed-layout pages (style="" and their stylesheets), as static elsewhere', async () => {
    const rows = await chaptersOf(bookId);
    expect(rows[1]!.content).toContain('position: absolute');
    expect(rows[1]!.content).toContain(OVERLAY_WORDS);
    const sheet = await file(bookId, 'css/fixed.css');
    expect(sheet).toMatch(/\.over\s*\{[^}]*position: absolute/);
    // position: fixed is absolute on a page (its own viewport never scrolls)
    expect(sheet).toMatch(/\.fixed-box\s*\{[^}]*position: absolute/);
    expect(sheet).not.toContain('fixed;');
    // a reflowable book's sheet still keeps nothing laid over the page
    expect(await file(reflowableId, 'css/book.css')).toMatch(/\.fixed\s*\{[^}]*position: static/);
  });

  it("gives the reader each page's rendition with the chapter, the archive item and the contents", async () => {
    // the sample chapter (the cover) may be read without an account
    const block = await client().post('/nest/epub/block/', { book_id: bookId, hrefs: 'pages/p1.xhtml' });
    expect(block.statusCode).toBe(200);
    expect(block.json()[0].rendition).toEqual({ layout: 'pre-paginated', spread: 'landscape', flow: 'auto', page_spread: 'right', viewport: { width: 600, height: 800 }, align_x_center: false });
    const chapter = await client().get(`/api/v1/book/${bookId}/chapter/pages/p1.xhtml`);
    expect(chapter.json().rendition.page_spread).toBe('right');

    const toc = (await client().get(`/nest/epub/toc/?book_id=${bookId}`)).json();
    expect(toc.rendition).toEqual({ layout: 'pre-paginated', spread: 'landscape', flow: 'auto', page_spread: null, viewport: { width: 600, height: 800 }, align_x_center: false });
    expect(toc.chapters.map((c: { uri: string; rendition: { page_spread: string | null; viewport: { width: number } | null } }) => [c.uri, c.rendition.page_spread, c.rendition.viewport?.width])).toEqual([
      ['pages/p1.xhtml', 'right', 600],
      ['pages/p2.xhtml', 'left', 600],
      ['images/p3.png.xhtml', 'right', 300],
      ['pages/p4.xhtml', 'center', 1200],
      ['pages/p5.xhtml', null, 600],
    ]);
    expect(toc.chapters.map((c: { rendition: { align_x_center: boolean } }) => c.rendition.align_x_center)).toEqual([false, false, false, false, true]);
  });

  it('gives a reflowable book its title rendition but no per-chapter list (nothing to pair)', async () => {
    const toc = (await client().get(`/nest/epub/toc/?book_id=${reflowableId}`)).json();
    expect(toc.rendition.layout).toBe('reflowable');
    expect(toc.chapters.every((c: { rendition?: unknown }) => c.rendition === undefined)).toBe(true);
  });

  it('keeps nothing that runs in the hostile variant: no script, no on* attribute, no javascript: in HTML or CSS', async () => {
    const rows = await chaptersOf(hostileId);
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row.content).not.toMatch(/<script|\son[a-z]+=|javascript:|__pwned/i);
      expect(row.rendition_layout).toBe('pre-paginated');
    }
    const sheet = await file(hostileId, 'css/fixed.css');
    expect(sheet).not.toMatch(/javascript|behavior|binding|__pwned/i);
    expect(sheet).toMatch(/\.over\s*\{[^}]*position: absolute/);
  });
});
