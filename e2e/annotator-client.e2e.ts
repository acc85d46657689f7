/**
 * The annotation store (docs/decisions.md "Annotations") with an unmodified Annotator 2.x client: the npm package
 * annotator@2.0.0-alpha.3, bundled as its own Makefile builds it (`browserify -s annotator browser.js`, with the
 * package's cssify and browserify-shim transforms; the package ships no prebuilt bundle) and injected as it is into a
 * page on the app's origin. The client's `annotator.storage.http` is pointed at a sample chapter's store prefix with
 * the token from GET /auth/token in `x-annotator-auth-token`, and its own API creates, finds, loads, updates and
 * deletes a note, checked against what the server stored. Without the header the client is anonymous, though its
 * requests carry the session cookie (same origin): search answers, create is a 401 through the client's own error path.
 * Last, the client's UI (`annotator.ui.main`) draws stored notes in the chapter's text and saves one made by selecting
 * text, adder and editor, its "Allow anyone to view" checkbox unticked (2.x's private: `read: [the user]`).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_GROUPS, type Annotation, annotationPaths, AUTH_TOKEN_HEADER, CONSUMER_KEY } from '@lectern/core';
import { launchBrowser, signInAsDemo } from './browser.ts';

const baseURL = inject('baseURL');
const require = createRequire(import.meta.url);
const annotatorDir = path.dirname(require.resolve('annotator/package.json'));
/** A page of ours on the app's origin (served by page.route, never by the app): the client's calls are same-origin. */
const TEST_PAGE = `${baseURL}/__annotator-2-client__/`;

/** The parts of Annotator 2.x's browser API the test uses (docs: annotator.readthedocs.io, v2.0). */
type Ann = Record<string, unknown> & { id?: string; text?: string; tags?: string[]; permissions?: Record<string, string[]> };
interface AnnotatorApp {
  include(module: unknown, options?: unknown): AnnotatorApp;
  start(): PromiseLike<unknown>;
  ident: { identity: string | null };
  annotations: {
    create(a: Ann): PromiseLike<Ann>;
    update(a: Ann): PromiseLike<Ann>;
    delete(a: Ann): PromiseLike<Ann>;
    query(q: Record<string, unknown>): PromiseLike<{ results: Ann[]; meta: { total: number } }>;
    load(q: Record<string, unknown>): PromiseLike<void>;
  };
}
interface Client {
  app: AnnotatorApp;
  /** what the client's http storage reported through `onError` (its own message for the status) */
  errors: { message: string; status: number }[];
  /** what the `annotationsLoaded` hook received, per load */
  loaded: Ann[][];
  notes: Record<string, Ann>;
}
type TestWindow = Window & {
  annotator: { App: new () => AnnotatorApp; storage: { http: unknown }; ui: { main: unknown } };
  clients: Record<string, Client>;
};
/** A rejection of the client's store call: jQuery's jqXHR. */
type Failure = { status: number; body: unknown };

/** The unmodified client, built from the installed package exactly as its Makefile builds pkg/annotator.js. */
function annotatorBundle(): string {
  const browserify = require.resolve('browserify/bin/cmd.js');
  return execFileSync(process.execPath, [browserify, '-s', 'annotator', 'browser.js'], { cwd: annotatorDir, maxBuffer: 32 << 20, encoding: 'utf8' });
}

describe('an unmodified Annotator 2.x client on the store', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let bundle = '';
  let token = '';
  let userId = '';
  let prefix = '';
  let chapterHtml = '';
  const pageErrors: string[] = [];
  const storeRequests: Request[] = [];

  /** The store's own answer to a search (as the server stored it), with the token or without. */
  const serverSearch = async (query: Record<string, string>, withToken = true) => {
    const res = await context.request.fetch(`${baseURL}${annotationPaths.search(prefix)}?${new URLSearchParams(query)}`, {
      headers: withToken ? { [AUTH_TOKEN_HEADER]: token } : {},
    });
    expect(res.status()).toBe(200);
    return (await res.json()) as { total: number; rows: Annotation[] };
  };

  /** Starts a client named `name` in the page: http storage on `prefix`, the token header unless `token` is null. */
  const startClient = (name: string, opts: { token: string | null; ui?: string; identity?: string }) =>
    page.evaluate(
      async ({ name, prefix, header, token, ui, identity }) => {
        const w = window as unknown as TestWindow;
        const client: Client = { app: new w.annotator.App(), errors: [], loaded: [], notes: {} };
        client.app.include(w.annotator.storage.http, {
          prefix,
          headers: token === null ? {} : { [header]: token },
          onError: (message: string, xhr: { status: number }) => client.errors.push({ message, status: xhr.status }),
        });
        if (ui) client.app.include(w.annotator.ui.main, { element: document.querySelector(ui) });
        // A module of our own on the client's hooks: what `load` hands the UI. (_local holds the UI's DOM nodes.)
        client.app.include(() => ({
          annotationsLoaded: (anns: Ann[]) => client.loaded.push(anns.map(({ _local, ...a }) => a)),
        }));
        await client.app.start();
        if (identity) client.app.ident.identity = identity;
        w.clients = w.clients ?? {};
        w.clients[name] = client;
      },
      { name, prefix, header: AUTH_TOKEN_HEADER, token: opts.token, ui: opts.ui ?? null, identity: opts.identity ?? null },
    );

  /** Opens the test page: the chapter's sanitised HTML in #chapter, then the client's bundle. */
  const openTestPage = async () => {
    await page.goto(TEST_PAGE);
    await page.addScriptTag({ content: bundle });
    expect(await page.evaluate(() => typeof (window as unknown as TestWindow).annotator?.App)).toBe('function');
  };

  beforeAll(async () => {
    bundle = annotatorBundle();
    browser = await launchBrowser();
    context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('request', (r) => {
      if (r.url().includes('/nest/api/a/')) storeRequests.push(r);
    });
    await signInAsDemo(page);

    // A sample book's chapter, found as a reader's client finds it.
    const list = await (await page.request.get('/api/v1/book/?page_size=50')).json();
    const summary = list.results.find((b: { title: string }) => /War of the Worlds/.test(b.title));
    const book = await (await page.request.get(summary.api_url)).json();
    const chapterSummary = book.chapters.find((c: { label: string }) => /Chapter 1\b/.test(c.label));
    const chapterRes = await page.request.get(chapterSummary.url);
    expect(chapterRes.status()).toBe(200);
    const chapter = await chapterRes.json();
    chapterHtml = chapter.content;
    prefix = annotationPaths.prefix(chapter.title_safe, chapter.book_id, chapter.chapter_href);

    // The token as a signed-in reader's page gets it: the session cookie on GET /auth/token.
    const tokenRes = await page.request.get(annotationPaths.token());
    expect(tokenRes.status()).toBe(200);
    token = (await tokenRes.text()).trim();
    userId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).userId;
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);

    await page.route(TEST_PAGE, (route) =>
      route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Annotator 2.x client</title></head>
<body><main id="chapter">${chapterHtml}</main></body></html>`,
      }),
    );
  });

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close();
  });

  it('creates, finds, loads, updates and deletes a note through the client API, as the server stores it', async () => {
    await openTestPage();
    await startClient('reader', { token });
    const marker = `annotator2client${Date.now()}`;

    // Create: what a 2.x client sends (quote, ranges, text, tags, no permissions) is stored for the token's user.
    const created = await page.evaluate(async (marker) => {
      const c = (window as unknown as TestWindow).clients.reader!;
      const note = await c.app.annotations.create({
        quote: 'No one would have believed',
        ranges: [{ start: '/p[1]', startOffset: 0, end: '/p[1]', endOffset: 26 }],
        text: `First thoughts ${marker}`,
        tags: ['martians', marker],
      });
      c.notes.first = note;
      return note;
    }, marker);
    expect(created).toMatchObject({
      quote: 'No one would have believed',
      ranges: [{ start: '/p[1]', startOffset: 0, end: '/p[1]', endOffset: 26 }],
      text: `First thoughts ${marker}`,
      tags: ['martians', marker],
      user: userId,
      consumer: CONSUMER_KEY,
      permissions: { read: [ANNOTATION_GROUPS.world], update: [], delete: [], admin: [] },
    });
    expect(created.id).toEqual(expect.any(String));
    const stored = await serverSearch({ tags: marker });
    expect(stored.total).toBe(1);
    expect(stored.rows[0]).toMatchObject({ id: created.id, text: `First thoughts ${marker}`, user: userId, quote: 'No one would have believed' });

    // Read back through the client: query (search with the client's own query string) and load (its hooks).
    const found = await page.evaluate(async (marker) => {
      const c = (window as unknown as TestWindow).clients.reader!;
      const q = await c.app.annotations.query({ tags: marker, limit: 1000 });
      await c.app.annotations.load({ text: marker });
      return { ids: q.results.map((a) => a.id), total: q.meta.total, loaded: c.loaded.map((l) => l.map((a) => a.id)) };
    }, marker);
    expect(found).toEqual({ ids: [created.id], total: 1, loaded: [[created.id]] });

    // Update: the client sends the whole object back (server-owned fields too); the note and tags change, the
    // author stays. Then 2.x's "only me may view" (read: [the user]) makes it private: gone for anonymous search.
    const revised = `${marker}-revised`;
    const updated = await page.evaluate(async (marker) => {
      const c = (window as unknown as TestWindow).clients.reader!;
      const note = c.notes.first!;
      note.text = 'Second thoughts, **bold**';
      note.tags = ['martians', `${marker}-revised`];
      const same = await c.app.annotations.update(note);
      return { same: same === note, note: { ...same } };
    }, marker);
    expect(updated.same).toBe(true); // the client keeps its object and fills it with the store's answer
    expect(updated.note).toMatchObject({ id: created.id, text: 'Second thoughts, **bold**', tags: ['martians', revised], user: userId, created: created.created });
    expect((await serverSearch({ tags: revised })).rows.map((a) => [a.id, a.text])).toEqual([[created.id, 'Second thoughts, **bold**']]);
    expect((await serverSearch({ tags: revised }, false)).rows.map((a) => a.id)).toEqual([created.id]); // world-readable

    const madePrivate = await page.evaluate(async (userId) => {
      const c = (window as unknown as TestWindow).clients.reader!;
      const note = c.notes.first!;
      note.permissions = { ...note.permissions, read: [userId] };
      return { ...(await c.app.annotations.update(note)) };
    }, userId);
    expect(madePrivate).toMatchObject({ permissions: { read: [userId] }, is_public: false });
    expect((await serverSearch({ tags: revised }, false)).total).toBe(0);
    expect((await serverSearch({ tags: revised })).total).toBe(1);

    // Delete: DELETE with the annotation as its JSON body, 204; gone from the store.
    const afterDelete = await page.evaluate(async (revised) => {
      const c = (window as unknown as TestWindow).clients.reader!;
      await c.app.annotations.delete(c.notes.first!);
      const q = await c.app.annotations.query({ tags: revised });
      return { total: q.meta.total, errors: c.errors };
    }, revised);
    expect(afterDelete).toEqual({ total: 0, errors: [] });
    expect((await serverSearch({ tags: revised })).total).toBe(0);
    const gone = await context.request.fetch(`${baseURL}${annotationPaths.annotation(prefix, created.id!)}`, { headers: { [AUTH_TOKEN_HEADER]: token } });
    expect(gone.status()).toBe(404);

    // What the client sent: the token header, JSON bodies, no CSRF header; the methods Annotator 2.x uses.
    const calls = storeRequests.map((r) => `${r.method()} ${new URL(r.url()).pathname.slice(prefix.length)}`);
    expect(calls).toEqual([
      'POST /annotations',
      'GET /search',
      'GET /search',
      `PUT /annotations/${created.id}`,
      `PUT /annotations/${created.id}`,
      `DELETE /annotations/${created.id}`,
      'GET /search',
    ]);
    for (const r of storeRequests) {
      const headers = await r.allHeaders();
      expect(headers[AUTH_TOKEN_HEADER]).toBe(token);
      expect(headers['x-csrftoken']).toBeUndefined();
    }
    expect(pageErrors).toEqual([]);
  });

  it('without the token header the client is anonymous, even with the session cookie: search answers, create is a 401', async () => {
    storeRequests.length = 0;
    await openTestPage();
    await startClient('reader', { token });
    await startClient('anonymous', { token: null });
    await startClient('forged', { token: `${token.slice(0, -4)}AAAA` });
    const marker = `annotator2public${Date.now()}`;

    const result = await page.evaluate(async (marker) => {
      const w = window as unknown as TestWindow;
      const failure = async (p: PromiseLike<unknown>): Promise<Failure | null> => {
        try {
          await p;
          return null;
        } catch (e) {
          const xhr = e as { status: number; responseJSON?: unknown };
          return { status: xhr.status, body: xhr.responseJSON ?? null };
        }
      };
      const mine = await w.clients.reader!.app.annotations.create({ quote: 'the Martians', ranges: [], text: marker, tags: [marker] });
      const anon = w.clients.anonymous!;
      const refused = await failure(anon.app.annotations.create({ quote: 'the Martians', ranges: [], text: `anonymous ${marker}`, tags: [marker] }));
      const seen = await anon.app.annotations.query({ tags: marker });
      const forged = w.clients.forged!;
      const forgedSearch = await failure(forged.app.annotations.query({ tags: marker }));
      const deleteAnon = await failure(anon.app.annotations.delete({ ...mine }));
      return {
        mine: mine.id,
        refused,
        anonErrors: anon.errors,
        seen: seen.results.map((a) => a.id),
        forgedSearch,
        forgedErrors: forged.errors,
        deleteAnon,
      };
    }, marker);

    // The client's own error path: its promise rejects with the 401 and its onError gets its own message.
    expect(result.refused).toMatchObject({ status: 401 });
    expect(result.anonErrors).toEqual([
      { message: 'You must be logged in to perform this operation! (Error 401)', status: 401 },
      { message: 'You must be logged in to perform this operation! (Error 401)', status: 401 },
    ]);
    expect(result.deleteAnon).toMatchObject({ status: 401 });
    // Anonymous search never refuses and shows the world-readable note; a forged token is a 401 even on search.
    expect(result.seen).toEqual([result.mine]);
    expect(result.forgedSearch).toMatchObject({ status: 401 });
    expect(result.forgedErrors).toEqual([{ message: 'You must be logged in to perform this operation! (Error 401)', status: 401 }]);
    // Nothing of the anonymous caller was stored; the reader's note is still there.
    expect((await serverSearch({ tags: marker })).rows.map((a) => a.id)).toEqual([result.mine]);

    // The anonymous calls did carry the session cookie (same origin): the cookie gives no authority on the store.
    const anonymousPost = storeRequests.find((r) => r.method() === 'POST' && !r.headers()[AUTH_TOKEN_HEADER]);
    expect(anonymousPost).toBeDefined();
    expect((await anonymousPost!.allHeaders()).cookie).toMatch(/\S/);
    expect((await anonymousPost!.response())?.status()).toBe(401);

    await page.evaluate(async (id) => void (await (window as unknown as TestWindow).clients.reader!.app.annotations.delete({ id })), result.mine!);
    expect((await serverSearch({ tags: marker })).total).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("the client's UI draws stored notes in the chapter and saves a private one made with its adder and editor", async () => {
    await openTestPage();
    // A note on the chapter's first long text, its range in Annotator's terms (XPath from #chapter), stored by
    // one client...
    const target = await page.evaluate(() => {
      const root = document.getElementById('chapter')!;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let t = walker.nextNode() as Text | null;
      while (t && t.data.trim().length < 120) t = walker.nextNode() as Text | null;
      const p = t!.parentElement!;
      const xpath = (el: Element): string => {
        if (el === root) return '';
        const same = Array.from(el.parentElement!.children).filter((c) => c.tagName === el.tagName);
        return `${xpath(el.parentElement!)}/${el.tagName.toLowerCase()}[${same.indexOf(el) + 1}]`;
      };
      // Annotator's offsets count the element's whole text: what comes before this text node in it, too.
      const before = document.createRange();
      before.setStart(p, 0);
      before.setEnd(t!, 0);
      const at = t!.data.search(/\S/);
      return { path: xpath(p), quote: t!.data.slice(at, at + 30), offset: before.toString().length + at };
    });
    await startClient('writer', { token });
    const stored = await page.evaluate(async (target) => {
      const c = (window as unknown as TestWindow).clients.writer!;
      return c.app.annotations.create({
        quote: target.quote,
        ranges: [{ start: target.path, startOffset: target.offset, end: target.path, endOffset: target.offset + 30 }],
        text: 'Drawn by the 2.x highlighter',
      });
    }, target);

    // ...and drawn by a fresh page's client with its UI, from the store's search answer.
    await openTestPage();
    await startClient('ui', { token, ui: '#chapter', identity: userId });
    // The reader's own notes of the chapter (others' world-readable notes, made in the app's reader, have ranges
    // from its frame's root, not from this page's #chapter).
    await page.evaluate(async (userId) => void (await (window as unknown as TestWindow).clients.ui!.app.annotations.load({ user: userId, limit: 1000 })), userId);
    await expect.poll(() => page.locator('#chapter .annotator-hl').allTextContents()).toEqual([target.quote]);
    const loaded = await page.evaluate(() => (window as unknown as TestWindow).clients.ui!.loaded.flat().map((a) => a.id));
    expect(loaded).toContain(stored.id);

    // Select other words of the chapter, the adder, the editor: a note with "Allow anyone to view" unticked.
    const selected = await page.evaluate(() => {
      const root = document.getElementById('chapter')!;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let t = walker.nextNode() as Text | null;
      let seen = 0;
      while (t && (t.data.trim().length < 120 || seen++ < 1)) t = walker.nextNode() as Text | null;
      const range = document.createRange();
      const at = t!.data.search(/\S/);
      range.setStart(t!, at);
      range.setEnd(t!, at + 40);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      const r = range.getBoundingClientRect();
      document.body.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, clientX: r.right, clientY: r.bottom, view: window }));
      return range.toString();
    });
    await page.locator('.annotator-adder button').click();
    const editor = page.locator('.annotator-editor');
    await editor.locator('textarea').fill('Saved through the 2.x editor');
    const viewBox = editor.locator('li.annotator-checkbox').filter({ hasText: 'view' }).locator('input');
    expect(await viewBox.isChecked()).toBe(true);
    await viewBox.uncheck();
    const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/annotations'));
    await editor.locator('.annotator-save').click();
    const response = await saved;
    expect(response.status()).toBe(200);
    const sent = response.request().postDataJSON() as Ann;
    expect(sent.permissions).toEqual({ read: [userId] }); // 2.x's private: only the user reads; update left out
    const note = (await response.json()) as Annotation;
    expect(note).toMatchObject({
      quote: selected.trim(),
      text: 'Saved through the 2.x editor',
      user: userId,
      is_public: false,
      permissions: { read: [userId], update: [], delete: [], admin: [] },
    });
    expect(note.ranges).toHaveLength(1);
    await expect.poll(() => page.locator('#chapter .annotator-hl').allTextContents()).toEqual([target.quote, selected]);
    expect((await serverSearch({ text: 'Saved through the 2.x editor' })).rows.map((a) => a.id)).toEqual([note.id]);
    expect((await serverSearch({ text: 'Saved through the 2.x editor' }, false)).total).toBe(0);

    // Tidy up through the client (its delete, no UI prompt): the store is as it was.
    await page.evaluate(
      async (ids) => {
        const c = (window as unknown as TestWindow).clients.ui!;
        for (const id of ids) await c.app.annotations.delete({ id });
      },
      [stored.id!, note.id],
    );
    expect((await serverSearch({ text: 'Saved through the 2.x editor' })).total).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
