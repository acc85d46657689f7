/**
 * The built web app as the server hands it out: cache headers per kind of file, index.html for page addresses,
 * JSON 404s for API addresses. A small stand-in dist folder, served by the real app.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { BOOT_DATA_ID, cardCoverUrl, decryptChapter, EARLY_BLOCK_GLOBAL, LONG_CHAPTER_CHARS } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOOT_MARKER,
  EARLY_BLOCK_SCRIPT,
  EARLY_BLOCK_SCRIPT_SOURCE,
  EARLY_INPUT_SCRIPT,
  EARLY_INPUT_SCRIPT_SOURCE,
  FIRST_SCREEN_STYLE_ATTRIBUTE,
  readerAddressOf,
  stylesheetsOf,
  withFirstScreen,
  withBootFirst,
  withPlaylistHeading,
  withReaderHeading,
} from '../../src/routes/web.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';
import { longChapterEpub } from '../fixtures/long-chapter.ts';

describe('web app files', () => {
  let t: TestApp;
  let client: TestClient;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><head><title>Lectern</title></head><body><div id="root"></div></body></html>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    // The build's compressed copies (vite.config.ts): marked so the test sees which file was sent.
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), 'brotli copy');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), 'gzip copy');
    fs.writeFileSync(path.join(dist, 'favicon-32.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.map'), '{"version":3,"sources":["../src/secret.ts"]}');
    // What the build writes (packages/web/vite.config.ts, routePreloads): the code each address's page opens with.
    fs.writeFileSync(
      path.join(dist, 'route-preloads.json'),
      JSON.stringify({
        '^/home/': { js: ['/assets/HomePage-h1.js'], css: ['/assets/HomePage-h2.css'] },
        '^/library/view/': { js: ['/assets/ReaderPage-r1.js', '/assets/locator-r2.js'], css: [] },
      }),
    );
    t = await startTestApp('sqlite', { webDist: dist });
    client = new TestClient(t.lectern.app);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('keeps hashed assets for a year and the icons for a day', async () => {
    const js = await client.get('/assets/index-abc123.js');
    expect(js.statusCode, js.body).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await client.get('/favicon-32.png');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('sends the brotli or gzip copy the build made to a browser that takes it, with the same caching', async () => {
    const br = await client.get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.body).toBe('brotli copy');
    const gz = await client.get('/assets/index-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body).toBe('gzip copy');
    const plain = await client.get('/assets/index-abc123.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log(1)');
    // The copies are not pages of their own.
    expect((await client.get('/assets/index-abc123.js.br')).headers['content-type']).toMatch(/^text\/html/);
  });

  it('answers page addresses with index.html, revalidated, and API addresses with a JSON 404', async () => {
    const page = await client.get('/library/view/moby-dick/abc/chapter_001.xhtml');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toContain('<div id="root">');
    const api = await client.get('/api/v1/no-such-thing/');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toHaveProperty('detail');
  });

  it("names the code an address's page opens with in that page's head, and nothing on other pages", async () => {
    const home = await client.get('/home/');
    expect(home.statusCode).toBe(200);
    const head = home.body.slice(0, home.body.indexOf('</head>'));
    // at low priority: they do not hold the first paint (vite.config.ts startFilesAtLowPriority)
    expect(head).toContain('<link rel="modulepreload" crossorigin href="/assets/HomePage-h1.js" fetchpriority="low">');
    expect(head).toContain('<link rel="preload" as="style" crossorigin href="/assets/HomePage-h2.css" fetchpriority="low">');
    const reader = await client.get('/library/view/moby-dick/abc/chapter_001.xhtml');
    expect(reader.body).toContain('href="/assets/ReaderPage-r1.js"');
    expect(reader.body).toContain('href="/assets/locator-r2.js"');
    expect(reader.body).not.toContain('HomePage');
    const catalog = await client.get('/library/');
    expect(catalog.body).not.toContain('modulepreload');
    expect(catalog.body).toContain('<div id="root">');
    // the table itself is the server's, not a file of the site
    expect((await client.get('/route-preloads.json')).headers['content-type']).toMatch(/^text\/html/);
  });

  it('never serves source maps, whatever the build left in dist', async () => {
    for (const url of ['/assets/index-abc123.js.map', '/assets/missing.js.map']) {
      const res = await client.get(url, { 'accept-encoding': 'identity' });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('sources');
    }
  });

  it('sends Referrer-Policy same-origin, so form posts carry their Origin', async () => {
    expect((await client.get('/library/')).headers['referrer-policy']).toBe('same-origin');
  });
});

describe('the no-JavaScript forms in index.html', () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Lectern</title><div id="root"></div><noscript><!--lectern:noscript-forms--></noscript>');
    t = await startTestApp('sqlite', { webDist: dist });
    await t.lectern.services.accounts.createUser({ email: 'nojs@example.com', password: 'a long enough password', status: 'subscriber' });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('fills the marker with a sign-in form carrying this caller\'s CSRF token, then a sign-out form once signed in', async () => {
    const client = new TestClient(t.lectern.app);
    const page = await client.get('/login/?next=/library/book/x/&error=credentials');
    expect(page.headers['cache-control']).toBe('private, no-cache');
    const token = client.cookies.get('csrftoken')!;
    expect(token).toBeTruthy();
    expect(page.body).toContain('<form method="post" action="/login/"');
    expect(page.body).toContain(`name="csrfmiddlewaretoken" value="${token}"`);
    expect(page.body).toContain('name="next" value="/library/book/x/"');
    expect(page.body).toContain('The email address or password is not correct.');

    const signIn = await client.request('POST', '/login/', {
      csrf: false,
      payload: new URLSearchParams({ email: 'nojs@example.com', password: 'a long enough password', next: '/library/', csrfmiddlewaretoken: token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(signIn.statusCode, signIn.body).toBe(303);
    const library = await client.get('/library/');
    expect(library.body).toContain('You are signed in as nojs@example.com.');
    expect(library.body).toContain(`name="csrfmiddlewaretoken" value="${client.cookies.get('csrftoken')}"`);
    expect(library.body).toContain('action="/logout/"');
  });

  it('escapes what it echoes', async () => {
    const page = await new TestClient(t.lectern.app).get('/library/%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
    expect(page.body).not.toContain('<script>alert(1)');
  });

  it('writes the address back as a double-quoted attribute value: " escaped, an apostrophe as it is', async () => {
    // the server's one attribute escaper (util/html-escape.ts); the URL parser leaves ' in a path and encodes "
    const page = await new TestClient(t.lectern.app).get(`/library/it's/<&"/`);
    expect(page.body).toContain(`name="next" value="/library/it's/%3C&amp;%22/"`);
  });

  it('still refuses a post whose Origin is null (a fetch from a sandboxed or opaque origin)', async () => {
    const client = new TestClient(t.lectern.app);
    await client.get('/login/');
    const res = await client.request('POST', '/login/', { json: { email: 'nojs@example.com', password: 'a long enough password' }, headers: { origin: 'null' } });
    expect(res.statusCode).toBe(403);
  });
});

describe.each(ENGINES)('the first screen\'s data in the page (%s)', (engine) => {
  let t: TestApp;
  let dist: string;
  // What a name may hold that would break out of the inline JSON if written as it is, or be read as a pattern.
  const hostile = `</script><script>alert(1)</script><!-- $' $& \u2028 &amp;`;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      // a head of the size of the real one (the build's is about 3 KB), so the page is worth compressing
      `<!doctype html><html><head><title>Lectern</title><style>${'.shell{display:flex}\n'.repeat(100)}</style></head><body><div id="root"></div>${BOOT_MARKER}<noscript><!--lectern:noscript-forms--></noscript></body></html>`,
    );
    t = await startTestApp(engine, { webDist: dist });
    await t.lectern.services.accounts.createUser({ email: 'boot@example.com', password: 'a long enough password', status: 'subscriber', username: hostile, team: hostile });
    // titles with covers, so the screens' answers hold something
    await importSamples(t.lectern);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const bootOf = (html: string): unknown => {
    const m = new RegExp(`<script type="application/json" id="${BOOT_DATA_ID}">(.*?)</script>`, 's').exec(html);
    return m ? JSON.parse(m[1]!) : undefined;
  };

  it('writes the signed-in reader\'s profile, as the profile route answers it, escaped so nothing closes the element', async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('boot@example.com', 'a long enough password');
    const page = await client.get('/home/');
    expect(page.statusCode).toBe(200);
    // per reader: no shared cache keeps it, and the browser's copy is for this cookie only
    expect(page.headers['cache-control']).toBe('private, no-cache');
    expect(page.headers['vary']).toMatch(/cookie/i);
    const profile = await client.get('/u/information_for_javascript');
    expect((bootOf(page.body) as { profile: unknown }).profile).toEqual(profile.json());
    expect((bootOf(page.body) as { profile: { username: string } }).profile.username).toBe(hostile);
    // one script element only: the name's `</script>` and `<script>` are escapes in the JSON
    expect(page.body.match(/<script/g)).toHaveLength(1);
    expect(page.body.match(/<\/script>/g)).toHaveLength(1);
    expect(page.body).not.toContain('alert(1)</script>');
    expect(page.body).toContain('\\u003c/script\\u003e');
    expect(page.body).not.toContain('\u2028');
    expect(page.body.endsWith('</body></html>')).toBe(true);
  });

  it("writes the answers the screen's first content is made of, as the API gives them to this reader", async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('boot@example.com', 'a long enough password');
    const answersOf = async (page: string) => {
      const res = await client.get(page);
      expect(res.statusCode).toBe(200);
      return (bootOf(res.body) as { answers: Record<string, unknown> }).answers;
    };
    const api = async (url: string) => {
      const res = await client.get(url);
      expect(res.statusCode, url).toBe(200);
      return res.json<unknown>();
    };
    // keyed by the address the web client asks (core's firstScreenRequests; packages/web/test/first-answers.test.tsx)
    expect(await answersOf('/home/')).toEqual({ '/api/v2/home/': await api('/api/v2/home/'), '/api/v1/home/modules/': await api('/api/v1/home/modules/') });
    const list = '/api/v1/book/?page=1&page_size=24';
    expect(await answersOf('/library/')).toEqual({ [list]: await api(list) });
    const search = '/api/v2/search/?q=whale+song&page=1&sort=relevance';
    expect(await answersOf('/search/?q=whale%20song')).toEqual({ [search]: await api(search) });
    // a playlist: the light list, then the playlist; another reader's playlist is not written (the API says 404)
    const made = (await client.post('/api/v2/collections/', { name: 'Whales', description: '' })).json<{ id: string }>();
    const light = '/nest/api/api/v2/collections/?content=none';
    const mine = `/nest/api/api/v2/collections/${made.id}/`;
    const queue = '/api/v1/queue-simple/';
    expect(await answersOf(`/c/collection/${made.id}/`)).toEqual({ [light]: await api(light), [mine]: await api(mine), [queue]: await api(queue) });
    const other = new TestClient(t.lectern.app);
    await t.lectern.services.accounts.createUser({ email: `boot-other-${engine}@example.com`, password: 'a long enough password', status: 'subscriber' });
    await other.login(`boot-other-${engine}@example.com`, 'a long enough password');
    const theirs = (await other.get(`/c/collection/${made.id}/`)).body;
    expect(Object.keys((bootOf(theirs) as { answers: Record<string, unknown> }).answers).sort()).toEqual([light, queue].sort());
    expect(theirs).not.toContain('Whales');
    // any other address, or a screen opened filtered, asks for its own as before
    for (const page of ['/library/?sort=recent', '/search/?q=whale&sort=newest', '/u', '/c/', '/library/view/x/y/z.xhtml']) expect(await answersOf(page), page).toEqual({});
    // the answers are this reader's: the home's modules say what this account dismissed
    expect((await client.post('/api/v1/home/dismissals/', { module: 'tutorial' })).statusCode).toBeLessThan(300);
    expect((await answersOf('/home/'))['/api/v1/home/modules/']).toMatchObject({ dismissed: ['tutorial'] });
  });

  it("names the catalog's first cover, as its card asks for it, for the page to fetch beside the app's code", async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('boot@example.com', 'a long enough password');
    const list = (await client.get('/api/v1/book/?page=1&page_size=24')).json<{ results: { cover_image_url: string | null }[] }>();
    const cover = list.results[0]?.cover_image_url;
    expect(cover, 'the first title of the sample library has a cover').toBeTruthy();
    const page = (await client.get('/library/')).body;
    const named = [...page.matchAll(/<link rel="preload" as="image" href="([^"]*)" fetchpriority="high">/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(named).toEqual([cardCoverUrl(cover!)]);
    const image = await client.get(named[0]!);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);
    // no other screen names one, nor the catalog for a visitor
    for (const other of ['/home/', '/search/?q=whale', '/library/?sort=recent']) expect((await client.get(other)).body, other).not.toContain('as="image"');
    expect((await new TestClient(t.lectern.app).get('/library/')).body).not.toContain('as="image"');
  });

  it("names a playlist's first card's cover, which its items do not carry, as the card's metadata request gives it", async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('boot@example.com', 'a long enough password');
    const named = (page: string) => [...page.matchAll(/<link rel="preload" as="image" href="([^"]*)" fetchpriority="high">/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const list = (await client.get('/api/v1/book/?page=1&page_size=24')).json<{ results: { api_url: string; cover_image_url: string | null }[] }>();
    const withCover = list.results.filter((r) => r.cover_image_url);
    expect(withCover.length, 'two sample titles with covers').toBeGreaterThanOrEqual(2);
    // the second title first: the playlist's own first item, not the catalog's
    const [second, first] = [withCover[0]!, withCover[1]!];
    const made = (await client.post('/api/v2/collections/', { name: 'Covers', description: '' })).json<{ id: string }>();
    expect((await client.post(`/api/v2/collections/${made.id}/add-content/`, { content: [first.api_url, second.api_url] })).statusCode).toBe(200);
    const metadata = (await client.post('/api/v1/metadata/', { urls: [first.api_url] })).json<{ cover_image_url: string }[]>();
    const page = (await client.get(`/c/collection/${made.id}/`)).body;
    expect(named(page)).toEqual([cardCoverUrl(metadata[0]!.cover_image_url)]);
    expect(named(page)).not.toContain(cardCoverUrl(second.cover_image_url!));
    const image = await client.get(named(page)[0]!);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\//);
    // an empty playlist names none; another reader's playlist (a 404 to them) names nothing of it
    const empty = (await client.post('/api/v2/collections/', { name: 'Empty', description: '' })).json<{ id: string }>();
    expect(named((await client.get(`/c/collection/${empty.id}/`)).body)).toEqual([]);
    const other = new TestClient(t.lectern.app);
    await t.lectern.services.accounts.createUser({ email: `covers-other-${engine}@example.com`, password: 'a long enough password', status: 'subscriber' });
    await other.login(`covers-other-${engine}@example.com`, 'a long enough password');
    expect(named((await other.get(`/c/collection/${made.id}/`)).body)).toEqual([]);
  });

  it('writes nothing for a visitor, and a null profile for a session that has gone', async () => {
    const visitor = await new TestClient(t.lectern.app).get('/home/');
    expect(visitor.statusCode).toBe(200);
    expect(visitor.body).not.toContain(BOOT_DATA_ID);
    expect(visitor.body).not.toContain(BOOT_MARKER);
    const gone = new TestClient(t.lectern.app);
    gone.cookies.set('lectern_session', 'no-such-session');
    gone.cookies.set('logged_in', '1');
    expect(bootOf((await gone.get('/library/')).body)).toEqual({ profile: null });
  });

  it('compresses the page and JSON answers for a browser that takes it, and leaves small or unasked ones alone', async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('boot@example.com', 'a long enough password');
    const plain = await client.get('/home/', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await client.get('/home/', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/cookie/i);
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body.replace(/value="[^"]*"/, `value="${client.cookies.get('csrftoken')}"`));
    const gz = await client.get('/home/', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toContain(BOOT_DATA_ID);
    // a JSON answer over a kilobyte (a list of ten playlists), and a small one (the profile) as it was
    for (let i = 0; i < 10; i++) expect((await client.post('/api/v2/collections/', { name: `Playlist ${i}`, description: 'd'.repeat(100) })).statusCode).toBe(201);
    const listPlain = await client.get('/api/v2/collections/', { 'accept-encoding': 'identity' });
    expect(listPlain.rawPayload.byteLength).toBeGreaterThanOrEqual(1024);
    expect(listPlain.headers['content-encoding']).toBeUndefined();
    const list = await client.get('/api/v2/collections/', { 'accept-encoding': 'br' });
    expect(list.headers['content-encoding']).toBe('br');
    expect(list.headers['vary']).toMatch(/accept-encoding/i);
    expect(list.rawPayload.byteLength).toBeLessThan(listPlain.rawPayload.byteLength / 2);
    expect(JSON.parse(zlib.brotliDecompressSync(list.rawPayload).toString())).toEqual(listPlain.json());
    const small = await client.get('/u/information_for_javascript', { 'accept-encoding': 'br' });
    expect(small.rawPayload.byteLength).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toHaveProperty('user_id');
  });
});

/**
 * The first screen rendered on the server (docs/decisions.md "The first screen rendered on the server"): the
 * build's renderer (packages/web src/ssr.tsx, `vite build --ssr`, built here into the stand-in dist) renders a
 * signed-in reader's search page into #root, from the answers written into the same page.
 */
const ENTRY_CSS = '.top-bar{height:61px;border-bottom:1px solid #e2e5e3}';
const SEARCH_CSS = '.search-page{max-width:72rem}';

describe.each(ENGINES)('the first screen rendered on the server (%s)', (engine) => {
  let t: TestApp;
  let dist: string;
  const skeleton = '<div class="boot" aria-busy="true">skeleton</div>';
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    const { build } = await import('vite');
    const web = path.resolve(import.meta.dirname, '../../../web');
    await build({ configFile: path.join(web, 'vite.config.ts'), logLevel: 'silent', build: { ssr: true, outDir: path.join(dist, 'ssr') } });
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      `<!doctype html><html><head><title>Lectern</title><link rel="preload" as="style" crossorigin href="/assets/index-a1.css" data-lectern-css></head><body><div id="root"><!--lectern:screen-->${skeleton}<!--/lectern:screen--></div>${BOOT_MARKER}<noscript><!--lectern:noscript-forms--></noscript></body></html>`,
    );
    // the entry's stylesheet and the search page's (route-preloads.json names it for /search/, as the build does)
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'assets', 'index-a1.css'), ENTRY_CSS);
    fs.writeFileSync(path.join(dist, 'assets', 'SearchPage-b2.css'), SEARCH_CSS);
    fs.writeFileSync(path.join(dist, 'route-preloads.json'), JSON.stringify({ '^/(search|noresults)/': { js: [], css: ['/assets/SearchPage-b2.css'] } }));
    t = await startTestApp(engine, { webDist: dist });
    for (const name of ['reader-a', 'reader-b']) {
      await t.lectern.services.accounts.createUser({ email: `ssr-${name}@example.com`, password: 'a long enough password', status: 'subscriber', username: `Name of ${name}` });
    }
    await importSamples(t.lectern);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const rootOf = (html: string) => /<div id="root"([^>]*)>([\s\S]*)<\/div>(?:<script>[^<]*<\/script>)?<script type="application\/json"/.exec(html);

  it("renders a signed-in reader's search page into #root, with nothing of another reader's, and its stylesheets in the page", async () => {
    const a = new TestClient(t.lectern.app);
    const b = new TestClient(t.lectern.app);
    await a.login('ssr-reader-a@example.com', 'a long enough password');
    await b.login('ssr-reader-b@example.com', 'a long enough password');
    // at once: each render sees its own request's page data and cookies
    const [pageA, pageB] = await Promise.all([a.get('/search/?q=whale'), b.get('/search/?q=whale')]);
    for (const [page, own, other] of [
      [pageA, 'reader-a', 'reader-b'],
      [pageB, 'reader-b', 'reader-a'],
    ] as const) {
      expect(page.statusCode).toBe(200);
      const root = rootOf(page.body);
      expect(root, 'the page has #root').not.toBeNull();
      expect(root![1]).toBe(' data-lectern-ssr');
      const screen = root![2]!;
      expect(screen).not.toContain('skeleton');
      // the screen the search answer makes: its heading and the sample library's whale book, as a link to it
      expect(screen).toContain('Results for “whale”');
      expect(screen).toMatch(/<a [^>]*href="\/library\/book\/[^"]+"[^>]*>Moby-Dick/);
      // the top bar of this reader, and nothing of the other one's
      expect(screen).toContain(`Account: Name of ${own}`);
      expect(page.body).not.toContain(`Name of ${other}`);
      expect(page.body).not.toContain(`ssr-${other}@`);
      // the HTML is the screen: the entry's and the page's stylesheets are in it, in their order, at the end of the
      // head, so the first paint waits for no file; the files' links are disabled (never fetched nor applied), not
      // stylesheets that hold the paint
      const head = page.body.slice(0, page.body.indexOf('</head>'));
      expect(head).toMatch(new RegExp(`<style ${FIRST_SCREEN_STYLE_ATTRIBUTE}>${ENTRY_CSS}\\n${SEARCH_CSS}</style>\\s*$`));
      expect(head).toContain('<link rel="stylesheet" disabled crossorigin href="/assets/index-a1.css" data-lectern-css>');
      expect(head).toContain('<link rel="stylesheet" disabled crossorigin href="/assets/SearchPage-b2.css" fetchpriority="low">');
      expect(page.body).not.toMatch(/<link rel="stylesheet"(?! disabled)/);
      // and the pages' CSP lets that <style> apply: 'unsafe-inline' for styles, with no hash or nonce beside it
      // (either would turn 'unsafe-inline' off), while scripts stay held to their hashes
      const csp = String(page.headers['content-security-policy']);
      const styleSrc = /(?:^|;)\s*style-src ([^;]*)/.exec(csp)![1]!.split(' ');
      expect(styleSrc).toContain("'unsafe-inline'");
      expect(styleSrc.filter((s) => /^'(sha\d+|nonce)-/.test(s))).toEqual([]);
      expect(/(?:^|;)\s*script-src ([^;]*)/.exec(csp)![1]).not.toContain('unsafe-inline');
      // what is done before the hydration is kept: the early script right after #root, allowed by its hash alone
      expect(page.body).toContain(`</div><script>${EARLY_INPUT_SCRIPT}</script>`);
      const scriptSrc = /script-src ([^;]*)/.exec(String(page.headers['content-security-policy']))![1]!.split(' ');
      expect(scriptSrc).toContain(EARLY_INPUT_SCRIPT_SOURCE);
      expect(EARLY_INPUT_SCRIPT_SOURCE).toBe(`'sha256-${createHash('sha256').update(EARLY_INPUT_SCRIPT).digest('base64')}'`);
    }
  });

  it('leaves the page as the browser renders it for a visitor, a gone session and a screen not rendered here', async () => {
    const visitor = new TestClient(t.lectern.app);
    const gone = new TestClient(t.lectern.app);
    await gone.login('ssr-reader-a@example.com', 'a long enough password');
    expect((await gone.post('/logout/', {})).statusCode).toBeLessThan(400);
    const reader = new TestClient(t.lectern.app);
    await reader.login('ssr-reader-b@example.com', 'a long enough password');
    for (const [client, url] of [
      [visitor, '/search/?q=whale'],
      [gone, '/search/?q=whale'],
      [reader, '/library/'],
      [reader, '/search/?q=whale&sort=newest'],
    ] as const) {
      const page = await client.get(url);
      expect(page.statusCode, url).toBe(200);
      const root = rootOf(page.body) ?? /<div id="root"([^>]*)>([\s\S]*?)<\/div>(?=<)/.exec(page.body);
      expect(root![1], url).toBe('');
      expect(page.body, url).toContain(skeleton);
      expect(page.body, url).toContain('rel="preload" as="style"');
      expect(page.body, url).not.toContain(EARLY_INPUT_SCRIPT);
      expect(page.body, url).not.toContain(FIRST_SCREEN_STYLE_ATTRIBUTE);
    }
  });
});

describe('a first screen with stylesheets that cannot be written into its page', () => {
  it('links them as stylesheets that hold the paint instead', () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    try {
      fs.mkdirSync(path.join(dist, 'assets'));
      fs.writeFileSync(path.join(dist, 'assets', 'a.css'), ENTRY_CSS);
      fs.writeFileSync(path.join(dist, 'assets', 'b.css'), 'b{content:"</style><script>alert(1)</script>"}');
      const styles = stylesheetsOf(dist);
      const html = (css: string) =>
        `<html><head><link rel="preload" as="style" crossorigin href="/assets/a.css" data-lectern-css fetchpriority="low">${css}</head><body><div id="root"><!--lectern:screen-->s<!--/lectern:screen--></div></body></html>`;
      const inlined = withFirstScreen(html(''), '<p>screen</p>', 'data-lectern-ssr', styles);
      expect(inlined).toContain(`<style ${FIRST_SCREEN_STYLE_ATTRIBUTE}>${ENTRY_CSS}</style>`);
      expect(inlined).toContain('<link rel="stylesheet" disabled crossorigin href="/assets/a.css" data-lectern-css fetchpriority="low">');
      // one that could close its <style>, one not in the build's assets, one missing: all linked, nothing inline
      for (const other of ['/assets/b.css', '/other/a.css', '/assets/missing.css']) {
        const page = withFirstScreen(html(`<link rel="preload" as="style" crossorigin href="${other}">`), '<p>screen</p>', 'data-lectern-ssr', styles);
        expect(page, other).not.toContain('<style');
        // holding the paint now, at the default priority the build's low one gave up
        expect(page, other).toContain('<link rel="stylesheet" crossorigin href="/assets/a.css" data-lectern-css>');
        expect(page, other).toContain(`<link rel="stylesheet" crossorigin href="${other}">`);
      }
    } finally {
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});

describe('readerAddressOf', () => {
  it('reads the book and the chapter of a reader address as the router does, and nothing else', () => {
    expect(readerAddressOf('/library/view/the-war/9780000000001/OEBPS/ch%201.xhtml/')).toEqual({ bookId: '9780000000001', href: 'OEBPS/ch 1.xhtml' });
    expect(readerAddressOf('/library/view/the-war/9780000000001/')).toBeNull();
    expect(readerAddressOf('/library/view/the-war/9780000000001')).toBeNull();
    expect(readerAddressOf('/library/book/9780000000001/')).toBeNull();
    expect(readerAddressOf('/library/view/the-war/97800%E0/ch.xhtml')).toBeNull();
  });

  it("puts a reader address's boot data after the head's charset, before the app's files, else at the marker", () => {
    const page = `<html><head><meta charset="utf-8" /><link rel="modulepreload" href="/a.js"></head><body>${BOOT_MARKER}</body></html>`;
    expect(withBootFirst(page, '<x>')).toBe('<html><head><meta charset="utf-8" />\n    <x><link rel="modulepreload" href="/a.js"></head><body></body></html>');
    // no charset in the head (a charset in the body does not count): where the marker is
    expect(withBootFirst(`<head></head><body><meta charset="utf-8">${BOOT_MARKER}</body>`, '<x>')).toBe('<head></head><body><meta charset="utf-8"><x></body>');
    // a `$&` in the data is written as it is
    expect(withBootFirst(page, '$&')).toContain('\n    $&<link');
  });
});

const CHAPTER_WORKER = '/assets/chapter.worker-CvBBwOkS.js';

describe.each(ENGINES)('a reader address asks for its chapter from the page itself (%s)', (engine) => {
  let t: TestApp;
  let dist: string;
  let book: { book_id: string; chapters: { full_path: string }[] };
  let readerAddress = '';
  let chapterHref = '';
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      `<!doctype html><html><head><meta charset="utf-8"><title>Lectern</title><script type="module" src="/assets/index-a1.js"></script></head><body><div id="root"><div class="boot__bar"></div><!--lectern:skeleton--><div class="boot__main"></div><!--/lectern:skeleton--></div>${BOOT_MARKER}</body></html>`,
    );
    // the build's chapter worker, as vite names it (the page starts it itself)
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'assets', CHAPTER_WORKER.slice('/assets/'.length)), 'self.postMessage({ kind: "ready" });');
    fs.writeFileSync(path.join(dist, 'assets', 'chapterWorker-Bq1x2Y3z.js'), 'export {};');
    t = await startTestApp(engine, { webDist: dist });
    await importSamples(t.lectern);
    await t.lectern.services.accounts.createUser({ email: 'early@example.com', password: 'a long enough password', status: 'subscriber' });
    const anon = new TestClient(t.lectern.app);
    const list = (await anon.get('/api/v1/book/')).json().results as { title: string; api_url: string }[];
    book = (await anon.get(list.find((b) => /War of the Worlds/.test(b.title))!.api_url)).json();
    chapterHref = book.chapters[6]!.full_path;
    readerAddress = `/library/view/the-war-of-the-worlds/${book.book_id}/${chapterHref}`;
  }, 120_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const bootOf = (html: string): Record<string, unknown> | undefined => {
    const m = new RegExp(`<script type="application/json" id="${BOOT_DATA_ID}">(.*?)</script>`, 's').exec(html);
    return m ? (JSON.parse(m[1]!) as Record<string, unknown>) : undefined;
  };
  /** The inline scripts of a page (no src, not JSON): their text. */
  const inlineScripts = (html: string) => [...html.matchAll(/<script>(.*?)<\/script>/gs)].map((m) => m[1]!);
  const signedIn = async () => {
    const client = new TestClient(t.lectern.app);
    await client.login('early@example.com', 'a long enough password');
    return client;
  };

  it('writes the book, the chapter, its format, the position and the key, and the one inline script the CSP allows by its hash, in a page kept by no cache', async () => {
    const client = await signedIn();
    // a stored position of this book, as the reader's PUT leaves it
    const locator = { href: chapterHref, progression: 0.25 };
    expect((await client.request('PUT', `/api/v1/book/${book.book_id}/position/`, { json: { locator } })).statusCode).toBe(200);
    const page = await client.get(readerAddress);
    expect(page.statusCode).toBe(200);
    // the key is in it: stored by no cache, the browser's included, as GET /nest/key/'s own answer
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.headers['vary']).toMatch(/cookie/i);
    const position = (await client.get(`/api/v1/book/${book.book_id}/position/`)).json();
    expect(position.position.locator).toEqual(locator);
    const key = (await client.get('/nest/key/')).json().key as string;
    expect(bootOf(page.body)?.reader).toEqual({ book_id: book.book_id, href: chapterHref, format: 'book', position, key, worker: CHAPTER_WORKER });
    // another page of the same reader holds no key, and stays revalidated rather than unstored
    const home = await client.get('/home/');
    expect(home.headers['cache-control']).toBe('private, no-cache');
    expect(home.body).not.toContain(key);
    const scripts = inlineScripts(page.body);
    expect(scripts).toEqual([EARLY_BLOCK_SCRIPT]);
    // at the head's start, after its charset, before the app's entry: the block request and the chapter worker's
    // script are asked for before the app's files (withBootFirst); the marker left no trace
    const at = page.body.indexOf(EARLY_BLOCK_SCRIPT);
    expect(page.body.indexOf('<meta charset="utf-8">')).toBeLessThan(page.body.indexOf(BOOT_DATA_ID));
    expect(at).toBeLessThan(page.body.indexOf('/assets/index-a1.js'));
    expect(at).toBeLessThan(page.body.indexOf('</head>'));
    expect(page.body).not.toContain(BOOT_MARKER);
    const csp = String(page.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)![1]!.split(' ');
    // 'self' and the hashes of this script and the first screens' (EARLY_INPUT_SCRIPT): nothing else inline runs
    // (no 'unsafe-inline', no nonce)
    expect(scriptSrc).toEqual(["'self'", EARLY_BLOCK_SCRIPT_SOURCE, EARLY_INPUT_SCRIPT_SOURCE]);
    expect(EARLY_BLOCK_SCRIPT_SOURCE).toBe(`'sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}'`);
  });

  it("calls a book's chapter of LONG_CHAPTER_CHARS or more long, and no shorter one (the app's start waits for its first screen)", async () => {
    const client = await signedIn();
    const long = longChapterEpub({ chars: LONG_CHAPTER_CHARS + 1000, uuid: '8f0c6a52-6d7e-4b7a-9d1e-000000150000', title: 'Boot Data: A Long Chapter' });
    const { book_id } = await t.lectern.services.importer.importBytes(long.bytes, 'long.epub');
    const address = (href: string) => `/library/view/boot-data-a-long-chapter/${book_id}/${href}`;
    expect(bootOf((await client.get(address(long.longPath))).body)?.reader).toMatchObject({ book_id, href: long.longPath, format: 'book', long: true });
    // the same book's short chapter, and the sample's: the key is absent, not false
    expect(bootOf((await client.get(address('text/ch1.xhtml'))).body)?.reader).not.toHaveProperty('long');
    expect(bootOf((await client.get(readerAddress)).body)?.reader).not.toHaveProperty('long');
  });

  it("the page's script sends the reader's own block request, which the server answers with the chapter for this reader's key", async () => {
    const client = await signedIn();
    const page = await client.get(readerAddress);
    const bootJson = new RegExp(`<script type="application/json" id="${BOOT_DATA_ID}">(.*?)</script>`, 's').exec(page.body)![1]!;
    const sent: { url: string; method: string; headers: Record<string, string>; body: string }[] = [];
    // What the script gives the chapter worker it starts (the browser's Worker, recorded: no worker runs in Node).
    const workers: { url: string; options: unknown; posted: { message: Record<string, unknown>; transfer: unknown[] }[] }[] = [];
    // The script as a browser runs it, its fetch sent to the real app with this reader's cookies.
    const cookie = [...client.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    // what this browser keeps for the reader (the script hands the worker these keys' values, as text)
    const stored: Record<string, string> = { reader_preferences: '{"font_size":1.2}', reader_positions: '{}', 'other-key': 'not handed' };
    const sandbox: Record<string, unknown> = {
      document: { getElementById: (id: string) => (id === BOOT_DATA_ID ? { textContent: bootJson } : null), cookie, addEventListener: () => undefined },
      location: { hash: '#part-2' },
      localStorage: { getItem: (k: string) => stored[k] ?? null },
      innerWidth: 1280,
      innerHeight: 800,
      performance: { mark: () => undefined },
      fetch: async (url: string, init: { method: string; headers: Record<string, string>; body: string }) => {
        sent.push({ url, ...init });
        const res = await client.request(init.method, url, { payload: init.body, headers: init.headers, csrf: false });
        const response = { status: res.statusCode, statusText: 'OK', json: () => res.json(), arrayBuffer: async () => new Uint8Array(res.rawPayload).buffer, clone: () => response };
        return response;
      },
      Worker: class {
        readonly record: (typeof workers)[number];
        constructor(url: string, options: unknown) {
          this.record = { url, options, posted: [] };
          workers.push(this.record);
        }
        addEventListener() {}
        postMessage(message: Record<string, unknown>, transfer: unknown[]) {
          this.record.posted.push({ message, transfer });
        }
      },
    };
    sandbox.window = sandbox;
    vm.runInNewContext(inlineScripts(page.body)[0]!, sandbox);
    const early = sandbox[EARLY_BLOCK_GLOBAL] as { book_id: string; href: string; response: Promise<{ status: number; json: () => unknown }> };
    expect(early.book_id).toBe(book.book_id);
    expect(early.href).toBe(chapterHref);
    const answer = await early.response;
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe('/nest/epub/block/');
    expect(JSON.parse(sent[0]!.body)).toEqual({ book_id: book.book_id, hrefs: chapterHref, package_resources: 1, screen_width: 1280, screen_height: 800, update_progress: true });
    expect(answer.status).toBe(200);
    const [item] = answer.json() as { chapter_href: string; error: string | null; resources: { content: string; checksum: string }[] }[];
    expect(item!.error).toBeNull();
    expect(item!.chapter_href).toBe(chapterHref);
    const key = (await client.get('/nest/key/')).json().key as string;
    const decrypted = decryptChapter(item!.resources[0]!.content, item!.resources[0]!.checksum, key, book.book_id, chapterHref);
    expect(decrypted.ok).toBe(true);
    // The chapter worker started by the page, at the build's address, handed the same answer and this reader's key
    // (id 0: the app's own requests start at 1), so it decrypts while the app starts.
    expect(await (early as unknown as { posted: Promise<boolean> }).posted).toBe(true);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.url).toBe(CHAPTER_WORKER);
    expect(workers[0]!.options).toEqual({ type: 'module', name: 'lectern-chapter' });
    expect(workers[0]!.posted).toHaveLength(1);
    const handed = workers[0]!.posted[0]!.message as { kind: string; id: number; params: unknown; key: string; csrf: string; answer: { bytes: ArrayBuffer; status: number } };
    expect({ kind: handed.kind, id: handed.id, params: handed.params, key: handed.key, status: handed.answer.status }).toEqual({
      kind: 'block',
      id: 0,
      params: { bookId: book.book_id, href: chapterHref, updateProgress: true },
      key,
      status: 200,
    });
    expect(handed.csrf).toBe(sent[0]!.headers['x-csrftoken']);
    // and what the reader would read in this browser, for the page's own first screen (web engine/pageFirstScreen.ts)
    const boot = JSON.parse(bootJson) as { profile: { user_uuid: string }; reader: { position: unknown } };
    expect((handed as unknown as { view: unknown }).view).toEqual({
      width: 1280,
      hash: '#part-2',
      cookie,
      storage: { reader_preferences: '{"font_size":1.2}', reader_pagination_chosen: null, reader_chrome: null, reader_positions: '{}', reader_server_positions: null },
      user: boot.profile.user_uuid,
      position: boot.reader.position,
    });
    const [handedItem] = JSON.parse(Buffer.from(handed.answer.bytes).toString('utf8')) as typeof item[];
    expect(decryptChapter(handedItem!.resources[0]!.content, handedItem!.resources[0]!.checksum, handed.key, book.book_id, chapterHref)).toEqual(decrypted);
    // Without the page's CSRF token the same request is refused, as any other (the script sends none then).
    const stranger = new TestClient(t.lectern.app);
    stranger.cookies.set('lectern_session', client.cookies.get('lectern_session')!);
    expect((await stranger.request('POST', '/nest/epub/block/', { payload: sent[0]!.body, headers: { 'content-type': 'application/json' }, csrf: false })).statusCode).toBe(403);
  });

  it('writes no reader start and no script for a visitor, a gone session, another page, a reader address without a chapter, or an unknown book', async () => {
    const visitor = await new TestClient(t.lectern.app).get(readerAddress);
    expect(visitor.body).not.toContain(BOOT_DATA_ID);
    expect(inlineScripts(visitor.body)).toEqual([]);
    const gone = new TestClient(t.lectern.app);
    gone.cookies.set('lectern_session', 'no-such-session');
    const gonePage = await gone.get(readerAddress);
    expect(bootOf(gonePage.body)).toEqual({ profile: null });
    expect(inlineScripts(gonePage.body)).toEqual([]);
    const client = await signedIn();
    for (const address of ['/home/', `/library/book/${book.book_id}/`, `/library/view/the-war-of-the-worlds/${book.book_id}/`, '/library/view/x/no-such-book/ch1.xhtml']) {
      const page = await client.get(address);
      expect(page.statusCode).toBe(200);
      expect(bootOf(page.body)).not.toHaveProperty('reader');
      expect(inlineScripts(page.body)).toEqual([]);
    }
  });

  it("writes the book's title and the chapter's label, as the reader's toolbar shows them, in place of the skeleton", async () => {
    const client = await signedIn();
    const toc = (await client.get(`/nest/epub/toc/?book_id=${encodeURIComponent(book.book_id)}`)).json<{ title: string; chapters: { uri: string; label: string }[] }>();
    const label = toc.chapters.find((c) => c.uri === chapterHref)!.label;
    expect(label).toBeTruthy();
    const page = await client.get(readerAddress);
    const root = page.body.slice(page.body.indexOf('<div id="root">'));
    expect(root).toContain(`<div class="boot__bar"></div><div class="boot__reader"><div class="boot__titles"><span class="boot__book">${toc.title}</span><h1 class="boot__chapter" id="boot-chapter-heading">${label}</h1></div></div></div>`);
    expect(root).not.toContain('boot__main');
    // a visitor, an unknown chapter of the book, another page: the skeleton as it is
    const visitor = await new TestClient(t.lectern.app).get(readerAddress);
    const unknown = await client.get(`/library/view/the-war-of-the-worlds/${book.book_id}/no-such-chapter.xhtml`);
    for (const other of [visitor, unknown, await client.get('/home/')]) {
      expect(other.body).toContain('<!--lectern:skeleton--><div class="boot__main"></div><!--/lectern:skeleton-->');
      expect(other.body).not.toContain('boot__chapter');
    }
  });

  it('escapes the titles it writes', () => {
    const html = '<div id="root"><!--lectern:skeleton-->s<!--/lectern:skeleton--></div>';
    expect(withReaderHeading(html, { title: 'A & B <i>', chapter: '</h1><script>alert(1)</script>' })).toBe(
      '<div id="root"><div class="boot__reader"><div class="boot__titles"><span class="boot__book">A &amp; B &lt;i&gt;</span><h1 class="boot__chapter" id="boot-chapter-heading">&lt;/h1&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h1></div></div></div>',
    );
    expect(withReaderHeading('<div id="root"></div>', { title: 't', chapter: 'c' })).toBe('<div id="root"></div>');
  });

  it('writes into the skeleton only between its markers in their order, as the first screen goes between its own', () => {
    const heading = { title: 't', chapter: 'c' };
    // an end marker before the start marker is no skeleton: the page stays as it is
    for (const html of ['<!--/lectern:skeleton-->s<!--lectern:skeleton-->', '<!--lectern:skeleton-->s', 's<!--/lectern:skeleton-->']) {
      expect(withReaderHeading(html, heading)).toBe(html);
      expect(withPlaylistHeading(html, { name: 'n', isDefault: false })).toBe(html);
    }
    expect(withReaderHeading('a<!--lectern:skeleton-->s<!--/lectern:skeleton-->b<!--/lectern:skeleton-->', heading)).toMatch(/^a<div class="boot__reader">.*<\/div>b<!--\/lectern:skeleton-->$/);
    expect(withFirstScreen('<div id="root"><!--/lectern:screen-->x<!--lectern:screen--></div>', '<p>s</p>', 'data-s')).toBe('<div id="root"><!--/lectern:screen-->x<!--lectern:screen--></div>');
    expect(withFirstScreen('<div id="root"><!--lectern:screen-->x<!--/lectern:screen--></div>', '<p>s</p>', 'data-s')).toBe(`<div id="root" data-s><p>s</p></div><script>${EARLY_INPUT_SCRIPT}</script>`);
  });

  it('escapes what the address holds: a chapter named to close the script is data, and the script is the same one', async () => {
    const client = await signedIn();
    const page = await client.get(`/library/view/x/${book.book_id}/%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E.xhtml`);
    expect((bootOf(page.body)?.reader as { href: string }).href).toBe('</script><script>alert(1)</script>.xhtml');
    expect(inlineScripts(page.body)).toEqual([EARLY_BLOCK_SCRIPT]);
    expect(page.body).not.toContain('alert(1)</script>');
  });
});

describe.each(ENGINES)("a playlist's page writes its heading (%s)", (engine) => {
  let t: TestApp;
  let dist: string;
  const skeleton = '<!--lectern:skeleton--><div class="boot__main"></div><!--/lectern:skeleton-->';
  // a name that would close the heading and run a script if written as it is, or be read as a replacement pattern
  const hostile = `</h1><script>alert(1)</script><!-- $' $& &amp;`;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      `<!doctype html><html><head><title>Lectern</title></head><body><div id="root"><div class="boot__bar"></div>${skeleton}</div>${BOOT_MARKER}</body></html>`,
    );
    t = await startTestApp(engine, { webDist: dist });
    for (const who of ['owner', 'other']) {
      await t.lectern.services.accounts.createUser({ email: `heading-${who}@example.com`, password: 'a long enough password', status: 'subscriber' });
    }
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });
  const signedIn = async (who: string) => {
    const client = new TestClient(t.lectern.app);
    await client.login(`heading-${who}@example.com`, 'a long enough password');
    return client;
  };

  it("writes the playlist's name, escaped, where the page's header will have it, in place of the skeleton", async () => {
    const client = await signedIn('owner');
    const made = (await client.post('/api/v2/collections/', { name: hostile, description: '' })).json<{ id: string }>();
    const page = await client.get(`/c/collection/${made.id}/`);
    expect(page.statusCode).toBe(200);
    const root = page.body.slice(page.body.indexOf('<div id="root">'), page.body.indexOf(BOOT_DATA_ID));
    expect(root).toContain(
      '<div class="boot__bar"></div><div class="boot__main boot__library"><div class="boot__side"></div><div><p class="boot__eyebrow">Playlist</p>' +
        `<h1 class="boot__heading" id="boot-playlist-heading">&lt;/h1&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!-- $' $&amp; &amp;amp;</h1></div></div></div>`,
    );
    expect(root).not.toContain(skeleton);
    expect(page.body).not.toContain('<script>alert(1)');
    // the default playlist's eyebrow, as its page says it
    const list = (await client.get('/api/v2/collections/?content=none')).json<{ id: string; is_default: boolean; name: string }[]>();
    const queue = list.find((p) => p.is_default);
    expect(queue, 'a reader has a default playlist').toBeDefined();
    expect((await client.get(`/c/collection/${queue!.id}/`)).body).toContain(`<p class="boot__eyebrow">Default playlist</p><h1 class="boot__heading" id="boot-playlist-heading">${queue!.name}</h1>`);
    // another reader's playlist (a 404 to them), a visitor, an unknown playlist, another page: the skeleton as it is
    const others = [
      await (await signedIn('other')).get(`/c/collection/${made.id}/`),
      await new TestClient(t.lectern.app).get(`/c/collection/${made.id}/`),
      await client.get('/c/collection/no-such-playlist/'),
      await client.get(`/c/collection/${made.id}/topic/x/`),
      await client.get('/home/'),
    ];
    for (const other of others) {
      expect(other.statusCode).toBe(200);
      expect(other.body).toContain(skeleton);
      expect(other.body).not.toContain('boot-playlist-heading');
    }
  });

  it('escapes the name it writes, and leaves a page without the skeleton as it is', () => {
    const html = '<div id="root"><!--lectern:skeleton-->s<!--/lectern:skeleton--></div>';
    expect(withPlaylistHeading(html, { name: '<b>A & B</b>', isDefault: false })).toBe(
      '<div id="root"><div class="boot__main boot__library"><div class="boot__side"></div><div><p class="boot__eyebrow">Playlist</p><h1 class="boot__heading" id="boot-playlist-heading">&lt;b&gt;A &amp; B&lt;/b&gt;</h1></div></div></div>',
    );
    expect(withPlaylistHeading('<div id="root"></div>', { name: 'n', isDefault: true })).toBe('<div id="root"></div>');
  });
});
