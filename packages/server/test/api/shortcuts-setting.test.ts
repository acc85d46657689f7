/**
 * The keyboard shortcuts' setting (library-playlists-account.md §6 "Shortcuts can be disabled by user setting"):
 * GET/PUT /api/v1/account/shortcuts/ per account, on by default, CSRF like every PUT, 400 naming the field; and
 * /u/shortcuts/ is a page of the web app although /u/ is an API prefix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHORTCUTS_PAGE_PATH, SHORTCUTS_SETTING_PATH, shortcutSettingSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';

describe.each(ENGINES)('the shortcuts setting on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  const put = (c: TestClient, body: unknown, csrf = true) => c.request('PUT', SHORTCUTS_SETTING_PATH, { json: body, csrf });
  const get = async (c: TestClient) => shortcutSettingSchema.parse((await c.get(SHORTCUTS_SETTING_PATH)).json());

  beforeAll(async () => {
    t = await startTestApp(engine);
    [ada, bob] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com']);
  });
  afterAll(() => t.close());

  it('is on by default, kept on the account (another session sees it), and per account', async () => {
    expect(await get(ada)).toEqual({ enabled: true });
    const off = await put(ada, { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toEqual({ enabled: false });
    expect(off.headers['cache-control']).toBe('private, no-store');
    const elsewhere = new TestClient(t.lectern.app);
    await elsewhere.login('ada@example.com', 'a long enough password');
    expect(await get(elsewhere)).toEqual({ enabled: false });
    expect(await get(bob)).toEqual({ enabled: true });
    // Twice the same, then back on: the one row is updated.
    expect((await put(ada, { enabled: false })).statusCode).toBe(200);
    expect((await put(ada, { enabled: true })).json()).toEqual({ enabled: true });
    expect(await get(elsewhere)).toEqual({ enabled: true });
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    await put(bob, { enabled: false });
    for (const body of [{}, { enabled: 'no' }, { enabled: 0 }, { enabled: null }, { enabled: false, colour: 'red' }]) {
      const res = await put(bob, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      const field = 'colour' in body ? 'colour' : 'enabled';
      expect(Object.keys(res.json().errors), JSON.stringify(body)).toContain(field);
    }
    const notJson = await bob.request('PUT', SHORTCUTS_SETTING_PATH, { payload: 'enabled=true', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notJson.statusCode).toBeGreaterThanOrEqual(400);
    expect(notJson.statusCode).toBeLessThan(500);
    expect(await get(bob)).toEqual({ enabled: false });
  });

  it('asks anonymous visitors to sign in and checks the CSRF token', async () => {
    const anon = new TestClient(t.lectern.app);
    expect((await anon.get(SHORTCUTS_SETTING_PATH)).statusCode).toBe(401);
    expect((await put(anon, { enabled: false })).statusCode).toBe(401);
    const before = await get(ada);
    expect((await put(ada, { enabled: !before.enabled }, false)).statusCode).toBe(403);
    expect(await get(ada)).toEqual(before);
  });
});

describe('the shortcuts settings page', () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><head><title>Lectern</title></head><body><div id="root"></div></body></html>');
    t = await startTestApp('sqlite', { webDist: dist });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves /u/shortcuts/ and the account page /u/ as pages while the rest of /u/ stays API', async () => {
    const client = new TestClient(t.lectern.app);
    // /u/ as every other page is reached with its slash too (a reader typing it got a JSON 404)
    for (const address of [SHORTCUTS_PAGE_PATH, SHORTCUTS_PAGE_PATH.slice(0, -1), '/u', '/u/']) {
      const page = await client.get(address);
      expect(page.statusCode, address).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('<div id="root">');
    }
    const other = await client.get('/u/no-such-call/');
    expect(other.statusCode).toBe(404);
    expect(other.headers['content-type']).toMatch(/json/);
  });
});
