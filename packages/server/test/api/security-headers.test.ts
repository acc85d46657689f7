import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { EARLY_BLOCK_SCRIPT_SOURCE, EARLY_INPUT_SCRIPT_SOURCE } from '../../src/routes/web.ts';

/** helmet's headers as Lectern configures it: every page and non-API answer carries all of them, whatever its status. */
const EXPECTED: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';" +
    `img-src 'self' data: blob:;object-src 'self';script-src 'self' ${EARLY_BLOCK_SCRIPT_SOURCE} ${EARLY_INPUT_SCRIPT_SOURCE};script-src-attr 'none';style-src 'self' 'unsafe-inline';` +
    "frame-src 'self' blob:",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** API answers (JSON, never rendered as a page): the OWASP REST set, the same whatever the status. */
const API_EXPECTED: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'self'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
};
const PAGE_ONLY = Object.keys(EXPECTED).filter((k) => !(k in API_EXPECTED));

describe.each(ENGINES)('security headers on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(() => t.close());

  it('sends every security header on answers, errors, 304s and refused requests alike', async () => {
    await t.lectern.services.accounts.createUser({ email: 'h@example.com', password: 'a long enough password', status: 'subscriber' });
    const c = new TestClient(t.lectern.app);
    await c.login('h@example.com', 'a long enough password');
    const list = await c.get('/api/v2/collections/');
    const answers = [
      list,
      await c.get('/api/v2/collections/', { 'if-none-match': String(list.headers.etag) }),
      await c.get('/api/v1/book/nope/'),
      await new TestClient(t.lectern.app).get('/api/v2/collections/'),
      await c.post('/api/v2/collections/', { name: 'x' }, { csrf: false }),
      await c.get('/nest/epub/toc/?book_id=nope'),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 304, 404, 401, 403, 404]);
    for (const a of answers) {
      const got = Object.fromEntries(Object.keys(API_EXPECTED).map((name) => [name, a.headers[name]]));
      expect(got).toEqual(API_EXPECTED);
      for (const name of PAGE_ONLY) expect(a.headers[name], name).toBeUndefined();
      expect(a.headers['x-powered-by']).toBeUndefined();
    }
    // Everything else (the health check, the no-JavaScript sign-in form, a refused form post) gets the page set.
    const pages = [await c.get('/healthz'), await new TestClient(t.lectern.app).post('/login/', { email: 'x' }, { csrf: false })];
    for (const a of pages) {
      const got = Object.fromEntries(Object.keys(EXPECTED).map((name) => [name, a.headers[name]]));
      expect(got).toEqual(EXPECTED);
      expect(a.headers['x-powered-by']).toBeUndefined();
    }
  });
});
