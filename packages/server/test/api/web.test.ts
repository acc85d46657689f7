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
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Lectern</title><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    // The build's compressed copies (vite.config.ts): marked so the test sees which file was sent.
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.br'), 'brotli copy');
    fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js.gz'), 'gzip copy');
    fs.writeFileSync(path.join(dist, 'favicon-32.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
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
});
