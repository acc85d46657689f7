import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

/** helmet's headers as Lectern configures it: every answer carries all of them, whatever its status. */
const EXPECTED: Record<string, string> = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';" +
    "img-src 'self' data: blob:;object-src 'self';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline';" +
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
      await c.get('/healthz'),
      list,
      await c.get('/api/v2/collections/', { 'if-none-match': String(list.headers.etag) }),
      await c.get('/api/v1/book/nope/'),
      await new TestClient(t.lectern.app).get('/api/v2/collections/'),
      await c.post('/api/v2/collections/', { name: 'x' }, { csrf: false }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 304, 404, 401, 403]);
    for (const a of answers) {
      const got = Object.fromEntries(Object.keys(EXPECTED).map((name) => [name, a.headers[name]]));
      expect(got).toEqual(EXPECTED);
      expect(a.headers['x-powered-by']).toBeUndefined();
    }
  });
});
