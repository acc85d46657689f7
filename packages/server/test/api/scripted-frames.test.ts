/**
 * Scripted titles on their own origin (docs/decisions.md "Scripted titles on their own origin"): the frame's address is
 * given only to a reader who may read the chapter, of a title allowed to run scripts, when a scripted origin is
 * configured; the scripted origin serves the chapter as a page with the book's scripts and ours, the book's files below
 * the token, and nothing once the token is forged or expired or the session has ended. Its one cookie binds the token
 * to the browser that opened it first (a leaked address worked for anyone, without cookies, for four hours).
 */
import fs from 'node:fs';
import path from 'node:path';
import { paths, READING_SYSTEM_NAME, SCRIPTED_FRAME_TTL_MS, SCRIPTS_CONSENT_MESSAGES, scriptedFrameSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { bindingCookie, buildScriptedOrigin, chapterPage } from '../../src/scripted-origin.ts';
import { securityHeaders } from '../../src/plugins/security-headers.ts';
import { SessionsRepository } from '../../src/repositories/sessions.ts';
import { ScriptsConsentsRepository } from '../../src/repositories/scripts-consents.ts';
import { BINDING_COOKIE, framesLabel, HANDSHAKE_MS, publicationLabel, ScriptedFrames } from '../../src/services/scripted-frames.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { framedEpub, scriptedEpub, SCRIPTED_TITLE, SVG_RAN } from '../fixtures/scripted.ts';
import { epubBook, twoChapterBook } from '../ingest/helpers.ts';
import { FRAME_DOCUMENT_TYPE, MAX_FRAME_DOCUMENTS } from '../../src/ingest/frame-document.ts';
import { LocalContentStore } from '../../src/storage/content-store.ts';

const ORIGIN = 'http://books.localhost:8181';
/** The token in a frame's address (`{origin}/b/{token}/{path}`). */
const frameUrlToken = (frame: unknown) => new URL(scriptedFrameSchema.parse(frame).url).pathname.split('/')[2]!;

describe.each(ENGINES)('scripted titles on %s', (engine) => {
  let t: TestApp;
  let reader: TestClient;
  let scriptedId: string;
  let plainId: string;
  const frameOf = (client: TestClient, bookId: string, p: string) => client.get(`${paths.scriptedFrame(bookId)}?path=${encodeURIComponent(p)}`);
  const onOrigin = (url: string, headers: Record<string, string> = {}) => t.lectern.scripted!.inject({ method: 'GET', url: url.replace(ORIGIN, ''), headers });
  /** The binding cookie a handshake answer sets, as a Cookie header (throws when it set none). */
  const bindingOf = (res: { headers: Record<string, unknown> }) => {
    const set = String(res.headers['set-cookie'] ?? '');
    const m = new RegExp(`^${BINDING_COOKIE}=([^;]+)`).exec(set);
    if (!m) throw new Error(`no binding cookie in ${set}`);
    return { cookie: `${BINDING_COOKIE}=${m[1]}` };
  };

  let framed: Promise<string> | null = null;
  /** The framed book (imported once, by the first test that needs it), its scripts allowed by the reader. */
  const importFramed = () =>
    (framed ??= (async () => {
      const file = path.join(t.dataDir, 'framed.epub');
      fs.writeFileSync(file, framedEpub());
      const id = (await t.lectern.services.importer.importFile(file, 'framed.epub', { allowScripts: true })).book_id;
      expect((await reader.request('PUT', paths.scriptsConsent(id), { json: { allow: true } })).statusCode).toBe(200);
      return id;
    })());

  beforeAll(async () => {
    t = await startTestApp(engine, { scriptedOrigin: ORIGIN, scriptedPort: 0 });
    const file = path.join(t.dataDir, 'scripted.epub');
    fs.writeFileSync(file, scriptedEpub());
    scriptedId = (await t.lectern.services.importer.importFile(file, 'scripted.epub', { allowScripts: true })).book_id;
    const plain = path.join(t.dataDir, 'plain.epub');
    fs.writeFileSync(plain, twoChapterBook());
    plainId = (await t.lectern.services.importer.importFile(plain, 'plain.epub')).book_id;
    [reader] = await signedInSubscribers(t.lectern, ['scripted-reader@example.com']);
    // the reader said yes to this title's scripts (docs/decisions.md "Scripted publications": nothing runs before they are asked)
    expect((await reader.request('PUT', paths.scriptsConsent(scriptedId), { json: { allow: true } })).statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it("serves the chapter as a page of the scripted origin: the book's scripts after ours, its files below the token", async () => {
    const res = await frameOf(reader, scriptedId, 'text/one.xhtml');
    expect(res.statusCode, res.body).toBe(200);
    const frame = scriptedFrameSchema.parse(res.json());
    expect(frame.origin).toBe(ORIGIN);
    expect(frame.url.startsWith(`${ORIGIN}/b/`)).toBe(true);
    expect(res.headers['cache-control']).toBe('private, no-store');

    // The app's session cookie means nothing there: the token, bound to this browser by the first answer, is the key.
    const page = await onOrigin(frame.url, { cookie: `lectern_session=${reader.cookies.get('lectern_session')}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const token = frame.url.split('/')[4]!;
    expect(String(page.headers['set-cookie'])).toMatch(new RegExp(`^${BINDING_COOKIE}=[^;]+; Path=/b/${token.replace('.', '\\.')}/; Max-Age=14\\d{3}; HttpOnly; SameSite=None; Secure; Partitioned$`));
    const bound = bindingOf(page);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'self' http://127.0.0.1:");
    expect(csp).toContain("default-src 'none'");
    const html = page.body;
    expect(html.indexOf('/lectern-reading-system.js')).toBeGreaterThan(0);
    expect(html.indexOf('/lectern-reading-system.js')).toBeLessThan(html.indexOf('interactive.js'));
    expect(html).toContain(`src="/b/${token}/js/interactive.js"`);
    expect(html).not.toContain('/api/v1/book/');
    expect(html).toContain(SCRIPTED_TITLE === 'Scripted Fixture' ? 'Interactive' : '');

    const script = await onOrigin(`/b/${token}/js/interactive.js`, bound);
    expect(script.statusCode).toBe(200);
    expect(script.headers['set-cookie']).toBeUndefined();
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
    const frames = new ScriptedFrames('test-secret-'.padEnd(40, 'x'), ORIGIN, t.lectern.services.catalog, { findLiveByPublicId: async () => undefined }, new ScriptsConsentsRepository(t.lectern.db.kysely));
    const grant = frames.verifyToken(token)!;
    expect(grant.bookId).toBe(scriptedId);
    const expired = frames.issueToken({ ...grant, expiresMs: grant.expiresMs - SCRIPTED_FRAME_TTL_MS - 1 }); // before its issue: past
    expect((await onOrigin(`/b/${expired}/text/one.xhtml`)).statusCode).toBe(404);
    const plain = frames.issueToken({ ...grant, bookId: plainId });
    expect((await onOrigin(`/b/${plain}/a.xhtml`)).statusCode).toBe(404);

    // Signing out ends the frame's access too.
    const opened = await onOrigin(frame.url);
    expect(opened.statusCode).toBe(200);
    expect((await onOrigin(frame.url, bindingOf(opened))).statusCode).toBe(200);
    await reader.post('/logout/');
    expect((await onOrigin(frame.url, bindingOf(opened))).statusCode).toBe(404);
    await reader.login('scripted-reader@example.com', 'a long enough password');
  });

  it('binds a frame address to the browser that opened it: leaked, it shows nothing to another browser or without the cookie', async () => {
    const frame = scriptedFrameSchema.parse((await frameOf(reader, scriptedId, 'text/one.xhtml')).json());
    const token = frame.url.split('/')[4]!;
    const script = `/b/${token}/js/interactive.js`;
    // The reader's frame opens it at once: the handshake binds it to the reader's browser.
    const opened = await onOrigin(frame.url);
    expect(opened.statusCode).toBe(200);
    const bound = bindingOf(opened);
    expect((await onOrigin(script, bound)).statusCode).toBe(200);
    expect((await onOrigin(frame.url, bound)).statusCode).toBe(200);

    // The same address in another browser (no cookie, another frame's cookie, a made-up one): nothing, page or file.
    const other = scriptedFrameSchema.parse((await frameOf(reader, scriptedId, 'text/one.xhtml')).json());
    const otherBound = bindingOf(await onOrigin(other.url));
    const madeUp = bound.cookie.split('=')[1]!.slice(1);
    for (const headers of [{}, otherBound, { cookie: `${BINDING_COOKIE}=${madeUp}x` }, { cookie: `${BINDING_COOKIE}=${madeUp}é` }, { cookie: `${BINDING_COOKIE}=; ${BINDING_COOKIE}` }]) {
      expect((await onOrigin(frame.url, headers)).statusCode).toBe(404);
      expect((await onOrigin(script, headers)).statusCode).toBe(404);
    }
    // The reader's browser still reads it.
    expect((await onOrigin(script, bound)).statusCode).toBe(200);

  });

  it('binds an address only within its first minute, on the frames\' clock (a leak found later is dead)', async () => {
    // A clock of the test's own: the minute is counted on it, never on the wall. The reader's session is the real one.
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const live = t.lectern.services.scriptedFrames.verifyToken(frameUrlToken((await frameOf(reader, scriptedId, 'text/one.xhtml')).json()))!;
    const session = await new SessionsRepository(t.lectern.db.kysely).findLiveByPublicId(live.sessionPublicId, new Date().toISOString());
    expect(session).toBeDefined();
    const frames = new ScriptedFrames('another-secret-'.padEnd(40, 'x'), ORIGIN, t.lectern.services.catalog, { findLiveByPublicId: async () => session }, new ScriptsConsentsRepository(t.lectern.db.kysely), () => new Date(clock));
    const issue = (nonce: string) => frames.issueToken({ sessionPublicId: live.sessionPublicId, bookId: scriptedId, nonce, expiresMs: clock + SCRIPTED_FRAME_TTL_MS });

    const late = issue('late');
    clock += HANDSHAKE_MS + 1;
    expect(await frames.open(late, 'text/one.xhtml')).toBeNull();

    const justInTime = issue('just-in-time');
    clock += HANDSHAKE_MS;
    const opened = await frames.open(justInTime, 'text/one.xhtml');
    expect(opened?.bind).toBeTruthy();
    // once bound, the binding opens it for the rest of the token's life; without it, nothing (a handshake binds once)
    clock += SCRIPTED_FRAME_TTL_MS - HANDSHAKE_MS - 1;
    expect((await frames.open(justInTime, 'js/interactive.js', [opened!.bind!.value]))?.bind).toBeNull();
    expect(await frames.open(justInTime, 'js/interactive.js')).toBeNull();
    clock += 1;
    expect(await frames.open(justInTime, 'js/interactive.js', [opened!.bind!.value])).toBeNull();
  });

  it("asks each reader once per title: their answer kept, 400 for a bad one, CSRF, 404 for a title without scripts, withdrawn to end the frame", async () => {
    const [other] = await signedInSubscribers(t.lectern, ['scripted-consent@example.com']);
    const consent = paths.scriptsConsent(scriptedId);
    const put = (client: TestClient, json: unknown, opts: { csrf?: boolean } = {}) => client.request('PUT', consent, { json, ...opts });
    expect((await new TestClient(t.lectern.app).get(consent)).statusCode).toBe(401);
    expect((await other.get(consent)).json()).toEqual({ book_id: scriptedId, decision: null });
    // not asked: no frame, whatever the first reader answered
    expect((await frameOf(other, scriptedId, 'text/one.xhtml')).statusCode).toBe(403);

    const bad = await put(other, { allow: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toHaveProperty('allow');
    expect((await put(other, { allow: true }, { csrf: false })).statusCode).toBe(403);
    expect((await other.get(consent)).json().decision).toBeNull();

    expect((await put(other, { allow: false })).json()).toEqual({ book_id: scriptedId, decision: 'declined' });
    expect((await frameOf(other, scriptedId, 'text/one.xhtml')).statusCode).toBe(403);
    expect((await put(other, { allow: true })).json()).toEqual({ book_id: scriptedId, decision: 'allowed' });
    const frame = scriptedFrameSchema.parse((await frameOf(other, scriptedId, 'text/one.xhtml')).json());
    const opened = await onOrigin(frame.url);
    expect(opened.statusCode).toBe(200);
    const bound = bindingOf(opened);
    const script = `/b/${frame.url.split('/')[4]}/js/interactive.js`;
    expect((await onOrigin(script, bound)).statusCode).toBe(200);

    // Withdrawn: asked again, and the frame already open gets nothing more; the first reader's answer is untouched.
    expect((await other.request('DELETE', consent, { csrf: false })).statusCode).toBe(403);
    expect((await other.request('DELETE', consent)).json()).toEqual({ book_id: scriptedId, decision: null });
    expect((await onOrigin(script, bound)).statusCode).toBe(404);
    expect((await other.get(consent)).json().decision).toBeNull();
    expect((await reader.get(consent)).json().decision).toBe('allowed');

    // A title that runs no scripts, or none at all: nothing to answer for.
    expect((await other.get(paths.scriptsConsent(plainId))).statusCode).toBe(404);
    expect((await other.request('PUT', paths.scriptsConsent('no-such-book'), { json: { allow: true } })).statusCode).toBe(404);
  });

  it('gives every title a host of its own under a wildcard origin, and serves a title only on its host', async () => {
    const WILD = 'http://*.books.localhost:8181';
    const live = t.lectern.services.scriptedFrames.verifyToken(frameUrlToken((await frameOf(reader, scriptedId, 'text/one.xhtml')).json()))!;
    const frames = new ScriptedFrames('wild-secret-'.padEnd(40, 'x'), WILD, t.lectern.services.catalog, new SessionsRepository(t.lectern.db.kysely), new ScriptsConsentsRepository(t.lectern.db.kysely));
    expect(frames.perPublication).toBe(true);
    const own = frames.originFor(scriptedId);
    expect(own).toBe(`http://${publicationLabel(scriptedId)}.books.localhost:8181`);
    expect(own).toMatch(/^http:\/\/t[0-9a-f]{20}\.books\.localhost:8181$/);
    expect(frames.originFor(plainId)).not.toBe(own);
    const server = buildScriptedOrigin(frames, new LocalContentStore(t.dataDir), 'http://127.0.0.1:1', 'silent');
    try {
      const token = frames.issueToken({ sessionPublicId: live.sessionPublicId, bookId: scriptedId, nonce: 'wild', expiresMs: Date.now() + SCRIPTED_FRAME_TTL_MS });
      const get = (url: string, host: string, headers: Record<string, string> = {}) => server.inject({ method: 'GET', url, headers: { host, ...headers } });
      const otherHost = new URL(frames.originFor(plainId)).host;
      // Another title's host (or the bare parent) never serves this title's files, and does not spend the handshake.
      expect((await get(`/b/${token}/text/one.xhtml`, otherHost)).statusCode).toBe(404);
      expect((await get(`/b/${token}/text/one.xhtml`, 'books.localhost:8181')).statusCode).toBe(404);
      const opened = await get(`/b/${token}/text/one.xhtml`, new URL(own).host);
      expect(opened.statusCode).toBe(200);
      // the binding cookie has no Domain: it stays on this title's host
      expect(String(opened.headers['set-cookie'])).toMatch(/^lectern_frame=[^;]+; Path=\/b\/[^;]+\/; Max-Age=\d+; HttpOnly; SameSite=None; Secure; Partitioned$/);
      const bound = bindingOf(opened);
      expect((await get(`/b/${token}/js/interactive.js`, new URL(own).host, bound)).statusCode).toBe(200);
      expect((await get(`/b/${token}/js/interactive.js`, otherHost, bound)).statusCode).toBe(404);
    } finally {
      await server.close();
    }
    // The app may frame every title's host: the wildcard goes into its frame-src as it is.
    expect(securityHeaders([WILD])['content-security-policy']).toMatch(/frame-src [^;]*http:\/\/\*\.books\.localhost:8181/);
    expect(loadConfig({ SCRIPTED_ORIGIN: WILD })).toMatchObject({ scriptedOrigin: WILD, scriptedPort: 8181 });
    expect(() => loadConfig({ SCRIPTED_ORIGIN: 'http://books.*.localhost:8181' })).toThrow(/whole first label/);
  });

  it("serves a chapter's iframe of its own document from the title's origin, with a chapter's headers and rights", async () => {
    const framedId = await importFramed();
    const frame = scriptedFrameSchema.parse((await frameOf(reader, framedId, 'text/one.xhtml')).json());
    const token = frameUrlToken(frame);
    const page = await onOrigin(frame.url);
    expect(page.statusCode).toBe(200);
    const bound = bindingOf(page);
    // the frame is built again, to the document below the token; the remote one is gone
    expect(page.body).toContain(`<iframe src="/b/${token}/text/inner-one.xhtml" title="The first inner page" style="width: 300px; height: 160px; border: 1px solid"></iframe>`);
    expect(page.body).not.toContain('example.org');
    expect(String(page.headers['content-security-policy'])).toContain("frame-src 'self'");

    const inner = await onOrigin(`/b/${token}/text/inner-one.xhtml`, bound);
    expect(inner.statusCode).toBe(200);
    expect(inner.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const name of ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'cache-control']) expect(inner.headers[name], name).toBe(page.headers[name]);
    expect(String(inner.headers['content-security-policy'])).toMatch(/frame-ancestors 'self' http:\/\/127\.0\.0\.1:\d+/);
    expect(inner.body).toContain('The inner page one of the framed book.');
    expect(inner.body.indexOf('/lectern-reading-system.js')).toBeGreaterThan(0);
    // its inline script stored as a file beside it, like a chapter's
    const script = /<script src="(\/b\/[^"]+\/text\/inner-one\.xhtml\.script-1\.js)"><\/script>/.exec(inner.body);
    expect(script, inner.body).not.toBeNull();
    const code = await onOrigin(script![1]!, bound);
    expect(code.statusCode).toBe(200);
    expect(code.body).toContain('epubReadingSystem');
    // The book's SVG drawing in an iframe: kept as the pages are, its frame document beside the drawing (which stays
    // an image), sanitised as an SVG chapter is, its script moved out of the drawing into a file of the book.
    expect(page.body).toContain(`<iframe src="/b/${token}/text/drawing.svg.frame.html" title="The drawing" style="width: 300px; height: 60px"></iframe>`);
    const drawing = await onOrigin(`/b/${token}/text/drawing.svg.frame.html`, bound);
    expect(drawing.statusCode).toBe(200);
    expect(drawing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(drawing.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
    expect(drawing.body).toMatch(/<svg[^>]*>.*id="svg-ran".*<\/svg>/s);
    const svgScript = /<\/svg><script src="(\/b\/[^"]+\/text\/drawing\.svg\.script-1\.js)"><\/script>/.exec(drawing.body);
    expect(svgScript, drawing.body).not.toBeNull();
    expect((await onOrigin(svgScript![1]!, bound)).body).toContain(SVG_RAN);
    // the drawing's own file is as the book has it (a drawing with a script goes as text, as any such SVG)
    for (const file of [await onOrigin(`/b/${token}/text/drawing.svg`, bound), await reader.get(paths.chapterApi(framedId, 'text/drawing.svg'))]) {
      expect(file.body.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(file.headers['content-type']).toBe('text/plain; charset=utf-8');
    }

    // without the browser's binding, on another title's host or outside the title: nothing
    expect((await onOrigin(`/b/${token}/text/inner-one.xhtml`)).statusCode).toBe(404);
    expect((await onOrigin(`/b/${token}/text/drawing.svg.frame.html`)).statusCode).toBe(404);
    const plainToken = frameUrlToken((await frameOf(reader, scriptedId, 'text/one.xhtml')).json());
    expect((await onOrigin(`/b/${plainToken}/text/inner-one.xhtml`)).statusCode).toBe(404);
    // on the app's origin the stored document is never a page: text, sandboxed
    const onApp = await reader.get(paths.chapterApi(framedId, 'text/inner-one.xhtml'));
    expect(onApp.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(String(onApp.headers['content-security-policy'])).toMatch(/^sandbox/);

    // Rights as the chapters that show it: a reader who may read only the sample chapter gets only its frame.
    const rows = await t.lectern.db.kysely.selectFrom('chapters').innerJoin('titles', 'titles.id', 'chapters.title_id').select(['chapters.full_path', 'chapters.as_sample']).where('titles.book_id', '=', framedId).execute();
    const sample = rows.find((r) => r.as_sample === 1)!.full_path;
    const locked = rows.find((r) => r.as_sample !== 1)!.full_path;
    const innerOf = (chapter: string) => (chapter === 'text/one.xhtml' ? 'text/inner-one.xhtml' : 'text/inner-two.xhtml');
    await t.lectern.services.accounts.createUser({ email: 'framed-expired@example.com', password: 'a long enough password', status: 'expired' });
    const lapsed = new TestClient(t.lectern.app);
    await lapsed.login('framed-expired@example.com', 'a long enough password');
    expect((await lapsed.request('PUT', paths.scriptsConsent(framedId), { json: { allow: true } })).statusCode).toBe(200);
    expect((await frameOf(lapsed, framedId, locked)).statusCode).toBe(403);
    const sampleFrame = scriptedFrameSchema.parse((await frameOf(lapsed, framedId, sample)).json());
    const sampleToken = frameUrlToken(sampleFrame);
    const lapsedBound = bindingOf(await onOrigin(sampleFrame.url));
    expect((await onOrigin(`/b/${sampleToken}/${innerOf(sample)}`, lapsedBound)).statusCode).toBe(200);
    expect((await onOrigin(`/b/${sampleToken}/${innerOf(locked)}`, lapsedBound)).statusCode).toBe(404);
    // and a subscriber gets both
    expect((await onOrigin(`/b/${token}/text/inner-two.xhtml`, bound)).statusCode).toBe(200);
  });

  it("leaves the note where a title without scripts had an iframe of its SVG drawing, as for its pages", async () => {
    const file = path.join(t.dataDir, 'framed-plain.epub');
    fs.writeFileSync(file, framedEpub('urn:uuid:5c217ed0-0000-4000-8000-0000000f4a3f'));
    const bookId = (await t.lectern.services.importer.importFile(file, 'framed-plain.epub')).book_id;
    const row = await t.lectern.db.kysely
      .selectFrom('chapters')
      .innerJoin('titles', 'titles.id', 'chapters.title_id')
      .select('chapters.content')
      .where('titles.book_id', '=', bookId)
      .where('chapters.full_path', '=', 'text/one.xhtml')
      .executeTakeFirstOrThrow();
    expect(row.content).toContain(`title="The drawing">${SCRIPTS_CONSENT_MESSAGES.embeddedPage('The drawing')}</span>`);
    expect(row.content).toContain(SCRIPTS_CONSENT_MESSAGES.embeddedPage('The first inner page'));
    expect(row.content).not.toContain('drawing.svg');
  });

  it('links only the frame documents it stored: past the limit an iframe keeps the plain note', async () => {
    const count = MAX_FRAME_DOCUMENTS + 2;
    const drawing = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>';
    const file = path.join(t.dataDir, 'many-frames.epub');
    fs.writeFileSync(
      file,
      epubBook({
        identifier: 'urn:uuid:5c217ed0-0000-4000-8000-0000000f4a40',
        title: 'Many Frames',
        chapters: [{ path: 'text/one.xhtml', label: 'One', body: Array.from({ length: count }, (_, i) => `<iframe src="d${i}.svg" title="Drawing ${i}"></iframe>`).join('') }],
        manifest: Array.from({ length: count }, (_, i) => `<item id="d${i}" href="text/d${i}.svg" media-type="image/svg+xml"/>`),
        files: Object.fromEntries(Array.from({ length: count }, (_, i) => [`text/d${i}.svg`, drawing])),
      }),
    );
    const bookId = (await t.lectern.services.importer.importFile(file, 'many-frames.epub', { allowScripts: true })).book_id;
    const rows = (kind: 'chapters' | 'resources') => t.lectern.db.kysely.selectFrom(kind).innerJoin('titles', 'titles.id', `${kind}.title_id`).where('titles.book_id', '=', bookId);
    const { content } = await rows('chapters').select('chapters.content').executeTakeFirstOrThrow();
    const stored = new Set((await rows('resources').select('resources.full_path').where('resources.media_type', '=', FRAME_DOCUMENT_TYPE).execute()).map((r) => r.full_path));
    expect(stored.size).toBe(MAX_FRAME_DOCUMENTS);
    const linked = [...content.matchAll(/<a hidden="hidden" href="\/api\/v1\/book\/[^/]+\/chapter\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
    expect(linked).toHaveLength(MAX_FRAME_DOCUMENTS);
    for (const link of linked) expect(stored.has(link), link).toBe(true);
    // the ones past the limit: the note, no link
    expect(content).toContain(`title="Drawing ${count - 1}">${SCRIPTS_CONSENT_MESSAGES.embeddedPage(`Drawing ${count - 1}`)}</span>`);
  });

  it("serves a chapter's inner pages under a wildcard from the title's frames host: another origin, its own bound address, a policy for each", async () => {
    const framedId = await importFramed();
    const WILD = 'http://*.books.localhost:8181';
    const APP = 'http://127.0.0.1:1';
    const live = t.lectern.services.scriptedFrames.verifyToken(frameUrlToken((await frameOf(reader, framedId, 'text/one.xhtml')).json()))!;
    // the frames' own clock, to count the inner address's first minute (the session is the real one)
    let clock = Date.now();
    const frames = new ScriptedFrames('wild-secret-'.padEnd(40, 'x'), WILD, t.lectern.services.catalog, new SessionsRepository(t.lectern.db.kysely), new ScriptsConsentsRepository(t.lectern.db.kysely), () => new Date(clock));
    const titleHost = new URL(frames.originFor(framedId)).host;
    const framesOrigin = frames.framesOriginFor(framedId);
    expect(framesOrigin).toBe(`http://${framesLabel(framedId)}.books.localhost:8181`);
    expect(framesLabel(framedId).slice(1)).toBe(publicationLabel(framedId).slice(1));
    expect(framesOrigin).not.toBe(frames.originFor(framedId));
    const framesHost = new URL(framesOrigin).host;
    const server = buildScriptedOrigin(frames, new LocalContentStore(t.dataDir), APP, 'silent');
    try {
      const get = (url: string, host: string, headers: Record<string, string> = {}) => server.inject({ method: 'GET', url, headers: { host, ...headers } });
      let issued = 0;
      const issue = () => frames.issueToken({ sessionPublicId: live.sessionPublicId, bookId: framedId, nonce: `wild-${++issued}`, expiresMs: clock + SCRIPTED_FRAME_TTL_MS });
      const token = issue();
      // as the reader's frame loads it: a frame navigation
      const asFrame = { 'sec-fetch-dest': 'iframe' };
      const page = await get(`/b/${token}/text/one.xhtml`, titleHost, asFrame);
      expect(page.statusCode).toBe(200);
      // the chapter frames the frames host only, and is framed by the app alone
      expect(String(page.headers['content-security-policy'])).toContain(`frame-src ${framesOrigin}; `);
      expect(String(page.headers['content-security-policy'])).toMatch(new RegExp(`frame-ancestors ${APP.replace(/[.:/]/g, '\\$&')}$`));
      const srcs = [...page.body.matchAll(/<iframe src="([^"]+)"/g)].map((m) => m[1]!);
      expect(srcs).toHaveLength(2);
      const inner = new URL(srcs[0]!);
      expect(inner.origin).toBe(framesOrigin);
      const innerToken = inner.pathname.split('/')[2]!;
      // an address for each frame (two frames loading side by side would race for one handshake), none the chapter's
      const drawing = new URL(srcs[1]!);
      const drawingToken = drawing.pathname.split('/')[2]!;
      expect(new Set([token, innerToken, drawingToken]).size).toBe(3);
      expect([inner.pathname, drawing.pathname, drawing.origin]).toEqual([`/b/${innerToken}/text/inner-one.xhtml`, `/b/${drawingToken}/text/drawing.svg.frame.html`, framesOrigin]);
      // the inner address opens on the frames host only; the chapter's never does (nor with its cookie)
      const chapterBound = bindingOf(page);
      expect((await get(inner.pathname, titleHost)).statusCode).toBe(404);
      expect((await get(`/b/${token}/text/inner-one.xhtml`, framesHost, chapterBound)).statusCode).toBe(404);
      const opened = await get(inner.pathname, framesHost);
      expect(opened.statusCode).toBe(200);
      expect(opened.body).toContain('The inner page one of the framed book.');
      // bound as the chapter's address is, by a cookie of the frames host for that address alone
      expect(String(opened.headers['set-cookie'])).toMatch(new RegExp(`^${BINDING_COOKIE}=[^;]+; Path=/b/${innerToken.replace('.', '\\.')}/; Max-Age=\\d+; HttpOnly; SameSite=None; Secure; Partitioned$`));
      const innerBound = bindingOf(opened);
      expect((await get(inner.pathname, framesHost)).statusCode).toBe(404);
      expect((await get(inner.pathname, framesHost, chapterBound)).statusCode).toBe(404);
      expect((await get(inner.pathname, framesHost, innerBound)).statusCode).toBe(200);
      // the drawing's frame, opened alongside without the first one's cookie, binds for itself
      expect((await get(drawing.pathname, framesHost, innerBound)).statusCode).toBe(200);
      expect((await get(drawing.pathname, framesHost, innerBound)).statusCode).toBe(404);
      // framed by the chapter inside the app (and by its own pages), framing only its own pages
      const innerCsp = String(opened.headers['content-security-policy']);
      expect(innerCsp).toContain("frame-src 'self'; ");
      expect(innerCsp).toMatch(new RegExp(`frame-ancestors 'self' ${frames.originFor(framedId).replace(/[.:/]/g, '\\$&')} ${APP.replace(/[.:/]/g, '\\$&')}$`));
      const script = /<script src="(\/b\/[^"]+\/text\/inner-one\.xhtml\.script-1\.js)"><\/script>/.exec(opened.body)![1]!;
      expect((await get(script, framesHost, innerBound)).statusCode).toBe(200);
      expect((await get(script, titleHost, innerBound)).statusCode).toBe(404);

      // An inner address shows its own document and no other page of the book: not another chapter, not another
      // frame document (and trying does not spend a fresh one's handshake).
      for (const other of ['text/two.xhtml', 'text/one.xhtml', 'text/inner-two.xhtml', 'text/drawing.svg.frame.html']) {
        expect((await get(`/b/${innerToken}/${other}`, framesHost, innerBound)).statusCode, other).toBe(404);
      }
      const fresh = /<iframe src="([^"]+)"/.exec((await get(`/b/${token}/text/one.xhtml`, titleHost, { ...chapterBound, ...asFrame })).body)![1]!;
      const freshToken = new URL(fresh).pathname.split('/')[2]!;
      expect((await get(`/b/${freshToken}/text/two.xhtml`, framesHost)).statusCode).toBe(404);
      expect((await get(new URL(fresh).pathname, framesHost)).statusCode).toBe(200);

      // The chapter fetched by a script (Sec-Fetch-Dest empty, or none) makes no inner address: the notes stay.
      for (const headers of [chapterBound, { ...chapterBound, 'sec-fetch-dest': 'empty' }]) {
        const fetched = await get(`/b/${token}/text/one.xhtml`, titleHost, headers);
        expect(fetched.statusCode).toBe(200);
        expect(fetched.body).not.toContain('<iframe');
        expect(fetched.body).toContain(SCRIPTS_CONSENT_MESSAGES.embeddedPage('The first inner page'));
      }

      // An inner address nobody opened within its first minute binds to nobody.
      const later = await get(`/b/${issue()}/text/one.xhtml`, titleHost, asFrame);
      const lateInner = /<iframe src="([^"]+)"/.exec(later.body)![1]!;
      clock += HANDSHAKE_MS + 1;
      expect((await get(new URL(lateInner).pathname, framesHost)).statusCode).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('remembers at most so many handshakes per process, the oldest forgotten first', async () => {
    const live = t.lectern.services.scriptedFrames.verifyToken(frameUrlToken((await frameOf(reader, scriptedId, 'text/one.xhtml')).json()))!;
    const frames = new ScriptedFrames('cap-secret-'.padEnd(40, 'x'), ORIGIN, t.lectern.services.catalog, new SessionsRepository(t.lectern.db.kysely), new ScriptsConsentsRepository(t.lectern.db.kysely), undefined, 3);
    for (let i = 0; i < 10; i++) {
      const token = frames.issueToken({ sessionPublicId: live.sessionPublicId, bookId: scriptedId, nonce: `cap-${i}`, expiresMs: Date.now() + SCRIPTED_FRAME_TTL_MS });
      expect((await frames.open(token, 'text/one.xhtml'))?.bind).toBeTruthy();
      expect(frames.boundCount).toBeLessThanOrEqual(3);
    }
    expect(frames.boundCount).toBe(3);
  });

  it('sets the binding cookie for a third-party frame where the origin can hold a Secure cookie, else Lax', () => {
    const bind = { value: 'v', path: '/b/t/', maxAgeSeconds: 60 };
    expect(bindingCookie(bind, 'https://books.example.org')).toBe(`${BINDING_COOKIE}=v; Path=/b/t/; Max-Age=60; HttpOnly; SameSite=None; Secure; Partitioned`);
    expect(bindingCookie(bind, 'http://localhost:8081')).toContain('SameSite=None; Secure; Partitioned');
    expect(bindingCookie(bind, 'http://books.example.org:8081')).toBe(`${BINDING_COOKIE}=v; Path=/b/t/; Max-Age=60; HttpOnly; SameSite=Lax`);
  });

  it('refuses a scripted origin on the app\'s own host name (cookies do not keep to a port)', () => {
    expect(() => loadConfig({ PORT: '8080', SCRIPTED_ORIGIN: 'http://127.0.0.1:8081' })).toThrow(/host name of its own/);
    expect(() => loadConfig({ SCRIPTED_ORIGIN: 'http://books.localhost:8081/path' })).toThrow(/without a path/);
    expect(loadConfig({ SCRIPTED_ORIGIN: 'http://books.localhost:8081' })).toMatchObject({ scriptedOrigin: 'http://books.localhost:8081', scriptedPort: 8081 });
  });
});
