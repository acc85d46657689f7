/**
 * The catalog's page writes its header and first card in place of index.html's skeleton (docs/decisions.md "The
 * catalog's first card in its page"), from the catalog's first answer the page carries: for a signed-in reader, with
 * the cover the card asks for and the title escaped; a visitor, a filtered catalog and a page whose answer is not
 * there get the skeleton as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BOOT_DATA_ID, cardCoverUrl } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOT_MARKER, catalogFirstCardOf, withCatalogFirstCard } from '../../src/routes/web.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

const skeleton = '<!--lectern:skeleton--><div class="boot__main"></div><!--/lectern:skeleton-->';
// a title that would close the card's heading and run a script if written as it is, or be read as a replacement pattern
const hostile = `</h2><script>alert(1)</script><img src=x onerror="alert(2)"> $' $& &amp;`;

describe.each(ENGINES)("the catalog's page writes its first card (%s)", (engine) => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      `<!doctype html><html><head><title>Lectern</title></head><body><div id="root"><div class="boot__bar"></div>${skeleton}</div>${BOOT_MARKER}</body></html>`,
    );
    t = await startTestApp(engine, { webDist: dist });
    await t.lectern.services.accounts.createUser({ email: 'card@example.com', password: 'a long enough password', status: 'subscriber' });
    await importSamples(t.lectern);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('writes the header and the first card, its cover as the card asks for it and its title escaped, for a reader only', async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('card@example.com', 'a long enough password');
    const first = (await client.get('/api/v1/book/?page=1&page_size=24')).json<{ count: number; results: { book_id: string; cover_image_url: string | null }[] }>();
    const cover = first.results[0]?.cover_image_url;
    expect(cover, 'the first title of the sample library has a cover').toBeTruthy();
    await t.lectern.db.kysely.updateTable('titles').set({ title: hostile }).where('book_id', '=', first.results[0]!.book_id).execute();

    const page = await client.get('/library/');
    expect(page.statusCode).toBe(200);
    const root = page.body.slice(page.body.indexOf('<div id="root">'), page.body.indexOf(BOOT_DATA_ID));
    const src = cardCoverUrl(cover!).replace(/&/g, '&amp;');
    expect(root).toContain(
      '<div class="boot__bar"></div><div class="boot__main boot__catalog"><div class="boot__head"><h1 class="boot__heading">Library</h1>' +
        `<p class="boot__count">${first.count} titles</p></div>`,
    );
    expect(root).toContain(
      `<img class="boot__cover" id="boot-catalog-cover" src="${src}" alt="&lt;/h2&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt; $' $&amp; &amp;amp;" fetchpriority="high"></div>` +
        // (longer than the shrink threshold: smaller, as the card sets it)
        '<div class="boot__body"><p class="boot__label">BOOK</p><h2 class="boot__title boot__title--shrink">' +
        `&lt;/h2&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror="alert(2)"&gt; $' $&amp; &amp;amp;</h2></div></div></div></div></div>`,
    );
    expect(root).not.toContain(skeleton);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<img src=x');
    // the cover it shows is the one the page preloads, the card's own image
    expect(page.body).toContain(`<link rel="preload" as="image" href="${src}" fetchpriority="high">`);
    const image = await client.get(cardCoverUrl(cover!));
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);

    // a visitor, a catalog opened filtered or sorted (no first answer in its page), another screen: the skeleton as it is
    const others = [await new TestClient(t.lectern.app).get('/library/'), await client.get('/library/?sort=recent'), await client.get('/home/'), await client.get('/search/?q=whale')];
    for (const other of others) {
      expect(other.statusCode).toBe(200);
      expect(other.body).toContain(skeleton);
      expect(other.body).not.toContain('boot-catalog-cover');
    }
  });

  it('writes a long title as the card shows it, and leaves a page without the skeleton as it is', () => {
    const html = '<div id="root"><!--lectern:skeleton-->s<!--/lectern:skeleton--></div>';
    const long = `${'A long title '.repeat(12)}end`;
    const card = withCatalogFirstCard(html, { count: 1, title: long, contentFormat: 'audiobook', cover: '/api/v1/book/b/cover?h=360' });
    expect(card).toContain('<p class="boot__count">1 title</p>');
    expect(card).toContain('<p class="boot__label">AUDIOBOOK</p><h2 class="boot__title boot__title--shrink">');
    // (core's titleDisplay: past twice the shrink threshold, cut with an ellipsis, as TitleCard shows it)
    expect(card).toContain(`${long.slice(0, 119).trimEnd()}…</h2>`);
    expect(withCatalogFirstCard('<div id="root"></div>', { count: 1, title: 't', contentFormat: null, cover: '/c' })).toBe('<div id="root"></div>');
  });

  it('paints no card when the first title has no cover image, or on another address', () => {
    const url = '/api/v1/book/?page=1&page_size=24';
    const withCover = { [url]: { count: 1, results: [{ title: 't', content_format: 'book', cover_image_url: '/api/v1/book/b/cover' }] } };
    expect(catalogFirstCardOf('/library/', withCover)).toMatchObject({ count: 1, title: 't', contentFormat: 'book' });
    // React draws a typographic cover there, which the page's styles do not: the skeleton stays
    expect(catalogFirstCardOf('/library/', { [url]: { count: 1, results: [{ title: 't', content_format: 'book', cover_image_url: null }] } })).toBeNull();
    expect(catalogFirstCardOf('/home/', withCover)).toBeNull();
  });
});
