/**
 * The built web app as the server hands it out: cache headers per kind of file, index.html for page addresses,
 * JSON 404s for API addresses. A small stand-in dist folder, served by the real app.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
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
