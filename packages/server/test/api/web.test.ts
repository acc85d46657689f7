/**
 * The built web app as the server hands it out: cache headers per kind of file, index.html for page addresses,
 * JSON 404s for API addresses. A small stand-in dist folder, served by the real app.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { BOOT_DATA_ID } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOT_MARKER } from '../../src/routes/web.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

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
    expect(head).toContain('<link rel="modulepreload" crossorigin href="/assets/HomePage-h1.js">');
    expect(head).toContain('<link rel="preload" as="style" crossorigin href="/assets/HomePage-h2.css">');
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
    expect(bootOf(page.body)).toEqual({ profile: profile.json() });
    expect((bootOf(page.body) as { profile: { username: string } }).profile.username).toBe(hostile);
    // one script element only: the name's `</script>` and `<script>` are escapes in the JSON
    expect(page.body.match(/<script/g)).toHaveLength(1);
    expect(page.body.match(/<\/script>/g)).toHaveLength(1);
    expect(page.body).not.toContain('alert(1)</script>');
    expect(page.body).toContain('\\u003c/script\\u003e');
    expect(page.body).not.toContain('\u2028');
    expect(page.body.endsWith('</body></html>')).toBe(true);
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
