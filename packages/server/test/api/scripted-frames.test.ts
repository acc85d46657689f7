/**
 * Scripted titles on their own origin (issue 12): the frame's address is given only to a reader who may read the
 * chapter, of a title allowed to run scripts, when a scripted origin is configured; the scripted origin serves the
 * chapter as a page with the book's scripts and ours, the book's files below the token, never a cookie, and nothing
 * once the token is forged or expired or the session has ended.
 */
import fs from 'node:fs';
import path from 'node:path';
import { paths, READING_SYSTEM_NAME, scriptedFrameSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { chapterPage } from '../../src/scripted-origin.ts';
import { ScriptedFrames } from '../../src/services/scripted-frames.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { scriptedEpub, SCRIPTED_TITLE } from '../fixtures/scripted.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const ORIGIN = 'http://books.localhost:8181';

describe.each(ENGINES)('scripted titles on %s', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  let scriptedId: string;
  let plainId: string;
  const frameOf = (client: TestClient, bookId: string, p: string) => client.get(`${paths.scriptedFrame(bookId)}?path=${encodeURIComponent(p)}`);
  const onOrigin = (url: string, headers: Record<string, string> = {}) => t.lectern.scripted!.inject({ method: 'GET', url: url.replace(ORIGIN, ''), headers });

  beforeAll(async () => {
    t = await startTestApp(engine, { scriptedOrigin: ORIGIN, scriptedPort: 0 });
    const file = path.join(t.dataDir, 'scripted.epub');
    fs.writeFileSync(file, scriptedEpub());
    scriptedId = (await t.lectern.services.importer.importFile(file, 'scripted.epub', { allowScripts: true })).book_id;
    const plain = path.join(t.dataDir, 'plain.epub');
    fs.writeFileSync(plain, twoChapterBook());
    plainId = (await t.lectern.services.importer.importFile(plain, 'plain.epub')).book_id;
    [reader] = await signedInSubscribers(t.lectern, ['scripted-reader@example.com']);
  });
  afterAll(() => t.close());

  it("serves the chapter as a page of the scripted origin: the book's scripts after ours, its files below the token, no cookie", async () => {
    const res = await frameOf(reader, scriptedId, 'text/one.xhtml');
    expect(res.statusCode, res.body).toBe(200);
    const frame = scriptedFrameSchema.parse(res.json());
    expect(frame.origin).toBe(ORIGIN);
    expect(frame.url.startsWith(`${ORIGIN}/b/`)).toBe(true);
    expect(res.headers['cache-control']).toBe('private, no-store');

    // The app's session cookie means nothing there: the token is the only key.
    const page = await onOrigin(frame.url, { cookie: `lectern_session=${reader.cookies.get('lectern_session')}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['set-cookie']).toBeUndefined();
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors http://127.0.0.1:");
    expect(csp).toContain("default-src 'none'");
    const html = page.body;
    expect(html.indexOf('/lectern-reading-system.js')).toBeGreaterThan(0);
    expect(html.indexOf('/lectern-reading-system.js')).toBeLessThan(html.indexOf('interactive.js'));
    const token = frame.url.split('/')[4]!;
    expect(html).toContain(`src="/b/${token}/js/interactive.js"`);
    expect(html).not.toContain('/api/v1/book/');
    expect(html).toContain(SCRIPTED_TITLE === 'Scripted Fixture' ? 'Interactive' : '');

    const script = await onOrigin(`/b/${token}/js/interactive.js`);
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).toContain('epubReadingSystem');
    const runtime = await onOrigin('/lectern-reading-system.js');
    expect(runtime.statusCode).toBe(200);
    expect(runtime.body).toContain(JSON.stringify(READING_SYSTEM_NAME));

    // The app itself may frame the scripted origin, and only it.
    const shell = await reader.get('/library/');
    expect(String(shell.headers['content-security-policy'])).toMatch(new RegExp(`frame-src [^;]*${ORIGIN.replace(/[.:/]/g, '\\$&')}`));
  });

  it("puts the class, id and style of the book's own html and body on the page's, escaped, its addresses below the token", () => {
    const page = chapterPage({
      html: '<p>x</p>',
      label: 'One',
      stylesheets: [],
      appOrigin: 'http://app.test',
      root: { html: { class: 'vrtl' }, body: { class: 'p-text "quoted"', id: 'b1', style: 'background-image: url("/api/v1/book/42/chapter/img/paper.png")' } },
      rewrite: (text) => text.split('/api/v1/book/42/chapter/').join('/b/TOKEN/'),
    });
    expect(page).toContain('<html class="vrtl"><head>');
    expect(page).toContain('<body class="p-text &#34;quoted&#34;" id="b1" style="background-image: url(&#34;/b/TOKEN/img/paper.png&#34;)"><p>x</p>');
  });

  it('gives no frame for a title without scripts, an anonymous visitor, or a missing chapter; 400 names the path', async () => {
    expect((await frameOf(reader, plainId, 'a.xhtml')).statusCode).toBe(404);
    expect((await frameOf(new TestClient(t.lectern.app), scriptedId, 'text/one.xhtml')).statusCode).toBe(401);
    expect((await frameOf(reader, scriptedId, 'text/nothing.xhtml')).statusCode).toBe(404);
    const bad = await reader.get(paths.scriptedFrame(scriptedId));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('path');
  });

  it('refuses a forged, altered or expired token, another book through a token, and a session that has ended', async () => {
    const frame = scriptedFrameSchema.parse((await frameOf(reader, scriptedId, 'text/one.xhtml')).json());
    const token = frame.url.split('/')[4]!;
    const [payload, mac] = token.split('.');
    expect((await onOrigin(`/b/${payload}.${mac!.slice(1)}x/text/one.xhtml`)).statusCode).toBe(404);
    expect((await onOrigin(`/b/${payload}x.${mac}/text/one.xhtml`)).statusCode).toBe(404);
    expect((await onOrigin('/b/nonsense/text/one.xhtml')).statusCode).toBe(404);

    // Signed with this server's secret but expired, or naming a book that may not run scripts: nothing.
    const frames = new ScriptedFrames('test-secret-'.padEnd(40, 'x'), ORIGIN, t.lectern.services.catalog, { findLiveByPublicId: async () => undefined });
    const grant = frames.verifyToken(token)!;
    expect(grant.bookId).toBe(scriptedId);
    const expired = frames.issueToken({ ...grant, expiresMs: Date.now() - 1 });
    expect((await onOrigin(`/b/${expired}/text/one.xhtml`)).statusCode).toBe(404);
    const plain = frames.issueToken({ ...grant, bookId: plainId });
    expect((await onOrigin(`/b/${plain}/a.xhtml`)).statusCode).toBe(404);

    // Signing out ends the frame's access too.
    expect((await onOrigin(frame.url)).statusCode).toBe(200);
    await reader.post('/logout/');
    expect((await onOrigin(frame.url)).statusCode).toBe(404);
  });

  it('refuses a scripted origin on the app\'s own host name (cookies do not keep to a port)', () => {
    expect(() => loadConfig({ PORT: '8080', SCRIPTED_ORIGIN: 'http://127.0.0.1:8081' })).toThrow(/host name of its own/);
    expect(() => loadConfig({ SCRIPTED_ORIGIN: 'http://books.localhost:8081/path' })).toThrow(/without a path/);
    expect(loadConfig({ SCRIPTED_ORIGIN: 'http://books.localhost:8081' })).toMatchObject({ scriptedOrigin: 'http://books.localhost:8081', scriptedPort: 8081 });
  });
});
