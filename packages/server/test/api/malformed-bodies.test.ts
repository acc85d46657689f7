/**
 * Bodies no parser can read (an attack run: an admin upload with `Content-Type: multipart/form-data` and no
 * boundary answered 500). The upload names the problem in a 400 on `file`; and every route that takes a body
 * answers a malformed or mislabelled one with a 4xx, never a 5xx. On both engines.
 */
import { UPLOAD_BODY_MESSAGES } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

const PASSWORD = 'a long enough password';
const IMPORT = '/api/v1/admin/import/';

/** Bodies that reached a parser's throw, or that parsers read differently: each with the Content-Type it claims. */
const MALFORMED: [contentType: string, body: string][] = [
  ['multipart/form-data', '--x\r\n'],
  ['multipart/form-data; boundary=', '--\r\n'],
  ['multipart/form-data; boundary=""', '--\r\n'],
  [`multipart/form-data; boundary=${'b'.repeat(300)}`, `--${'b'.repeat(300)}\r\n`],
  ['multipart/form-data; boundary=abc', 'garbage'],
  ['multipart/form-data; boundary=abc', '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.epub"\r\n\r\nno closing boundary'],
  ['multipart/form-data; boundary=abc', '--abc\r\nbad header line\r\n\r\nxx\r\n--abc--\r\n'],
  ['multipart/form-data; boundary=abc', `--abc\r\nX-Long: ${'h'.repeat(100_000)}\r\n\r\nx\r\n--abc--\r\n`],
  ['multipart/form-data; boundary=abc', '--abc\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--abc--\r\n'],
  ['multipart/mixed; boundary=abc', '--abc--\r\n'],
  ['application/json', '{bad'],
  ['application/json', ''],
  ['application/json', '{"__proto__": {"admin": true}}'],
  ['application/json', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
  ['application/json', '\xff\xfe{}'],
  ['application/json; charset=utf-16', '{}'],
  ['text/plain', 'hello'],
  ['application/xml', '<a/>'],
  ['application/x-www-form-urlencoded', 'email=%ff%fe&password=%zz'],
  ['application/x-www-form-urlencoded', 'x'.repeat(70_000)],
  ['application/octet-stream', 'x'],
  ['', 'x'],
];

describe.each(ENGINES)('malformed request bodies on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  const signIn = async () => {
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
  };
  const send = (path: string, contentType: string, body: string, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' = 'POST') =>
    admin.request(method, path, { headers: contentType ? { 'content-type': contentType } : {}, payload: body });

  beforeAll(async () => {
    // a sign-in per route below: the routes include sign-out and sign-out-everywhere
    t = await startTestApp(engine, { loginRateLimit: 100_000 });
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    await signIn();
  });
  afterAll(() => t.close());

  it('answers an upload whose multipart Content-Type names no boundary with a 400 naming it (was a 500)', async () => {
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; charset=utf-8']) {
      const res = await send(IMPORT, contentType, '--x\r\nContent-Disposition: form-data; name="file"; filename="a.epub"\r\n\r\nx\r\n--x--\r\n');
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ detail: UPLOAD_BODY_MESSAGES.noBoundary, errors: { file: [UPLOAD_BODY_MESSAGES.noBoundary] } });
    }
    // a new edition's upload too (the book is checked first: none here, a 404)
    const replace = await send(`${IMPORT}?replace=no-such-book`, 'multipart/form-data', '--x\r\n');
    expect(replace.statusCode).toBe(404);
  });

  it('answers an upload whose multipart body ends early or is malformed with a 400 naming it (was a 500)', async () => {
    for (const body of ['garbage', '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.epub"\r\n\r\nno closing boundary']) {
      const res = await send(IMPORT, 'multipart/form-data; boundary=abc', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual({ file: [UPLOAD_BODY_MESSAGES.malformed] });
    }
    const long = await send(IMPORT, `multipart/form-data; boundary=${'b'.repeat(300)}`, `--${'b'.repeat(300)}\r\n`);
    expect(long.statusCode, long.body).toBe(400);
    expect(long.json().errors).toEqual({ file: [UPLOAD_BODY_MESSAGES.boundaryTooLong] });
  });

  it('answers every malformed or mislabelled body on every route that takes one with a 4xx, never a 5xx', async () => {
    const routes: { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string }[] = [];
    for (const line of t.lectern.app.printRoutes({ commonPrefix: false }).split('\n')) {
      const m = /([^\s─└├│]+) \(([^)]+)\)/.exec(line);
      if (!m) continue;
      for (const method of m[2]!.split(', ')) {
        if (method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE') routes.push({ method, path: m[1]!.replace(/:[A-Za-z]+/g, 'x').replace('*', 'x') });
      }
    }
    expect(routes.length).toBeGreaterThan(40);
    expect(routes).toContainEqual({ method: 'POST', path: IMPORT });
    const fives: string[] = [];
    for (const r of routes) {
      await signIn();
      for (const [contentType, body] of MALFORMED) {
        const res = await send(r.path, contentType, body, r.method);
        if (res.statusCode >= 500) fives.push(`${res.statusCode} ${r.method} ${r.path} [${contentType}] ${JSON.stringify(body).slice(0, 40)}`);
        else expect(res.statusCode, `${r.method} ${r.path} [${contentType}]`).toBeLessThan(500);
      }
    }
    expect(fives).toEqual([]);
  });
});
