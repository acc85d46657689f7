/**
 * Issue 22's leftovers on the server, on both engines: where the video-failure page points (SUPPORT_EMAIL, GET
 * /api/v1/player/support/); the admin upload's 20 files per request (a folder of parts) with a clear 400 beyond and
 * nothing imported; and a new edition of a media title (`?replace=` and `import --replace`), which keeps its book id,
 * the rows of parts still in it, readers' positions and playlists, as a book's new edition does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_MESSAGES, importReportSchema, mediaSupportSchema, paths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { minimalEpub3 } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';

export function multipart(files: { name: string; data: Uint8Array }[]) {
  const boundary = `----lectern${Date.now()}`;
  const parts: Buffer[] = [];
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.from(f.data), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('SUPPORT_EMAIL', () => {
  it('is an email address or unset', () => {
    expect(loadConfig({ SUPPORT_EMAIL: 'help@library.example' }).supportEmail).toBe('help@library.example');
    expect(loadConfig({}).supportEmail).toBeNull();
    expect(loadConfig({ SUPPORT_EMAIL: '' }).supportEmail).toBeNull();
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address' })).toThrow(ConfigError);
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address' })).toThrow(/SUPPORT_EMAIL must be an email address/);
  });
});

describe.each(ENGINES)('media leftovers on %s', (engine) => {
  let t: TestApp;
  let bare: TestApp;
  let admin: TestClient;

  beforeAll(async () => {
    [t, bare] = await Promise.all([startTestApp(engine, { supportEmail: 'help@library.example' }), startTestApp(engine)]);
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', PASSWORD);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), bare?.close()]);
  });

  it('tells anyone where the video-failure page points: the support address, or null when none is set', async () => {
    const visitor = new TestClient(t.lectern.app);
    const res = await visitor.get(paths.mediaSupport());
    expect(res.statusCode).toBe(200);
    expect(mediaSupportSchema.parse(res.json())).toEqual({ support_email: 'help@library.example' });
    const none = await new TestClient(bare.lectern.app).get(paths.mediaSupport());
    expect(none.json()).toEqual({ support_email: null });
  });

  it('takes at most 20 files in one upload: the 21st is a 400 naming file, and nothing is imported', async () => {
    const titles = async () => (await t.lectern.db.kysely.selectFrom('titles').select('id').execute()).length;
    const before = await titles();
    // 21 different small books (each its own bytes): 20 of them would import
    const files = Array.from({ length: 21 }, (_, i) => ({ name: `book-${i}.epub`, data: minimalEpub3({ [`OEBPS/extra-${i}.txt`]: `book ${i}` }) }));
    const res = await admin.request('POST', '/api/v1/admin/import/', multipart(files));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ detail: ADMIN_MESSAGES.tooManyFiles(20), errors: { file: [ADMIN_MESSAGES.tooManyFiles(20)] } });
    expect(await titles()).toBe(before);
    expect(fs.readdirSync(path.join(t.dataDir, 'tmp'))).toEqual([]);
    // 20 is the limit, not past it: all 20 are read (one book, the 19 copies refused as already in, no worker each)
    const same = { name: 'one.epub', data: minimalEpub3({ 'OEBPS/one.txt': 'the one book' }) };
    const twenty = await admin.request('POST', '/api/v1/admin/import/', multipart(Array.from({ length: 20 }, (_, i) => ({ ...same, name: `copy-${i}.epub` }))));
    expect(twenty.statusCode, twenty.body).toBe(201);
    const report = importReportSchema.parse(twenty.json());
    expect([report.imported.length, report.failed.length]).toEqual([1, 19]);
  });
});
