/**
 * The first screen rendered on the server, within a time limit (docs/decisions.md "The first screen rendered on the
 * server, within a time limit"): a render that never ends holds no page. Past FIRST_SCREEN_LIMIT_MS each page is
 * served as the browser renders it, as a visitor's is, and the log says why. The renderer here is a stand-in build
 * (dist/ssr/ssr.js) whose render never settles: the stuck prepare or the render of a very large answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BOOT_MARKER, FIRST_SCREEN_LIMIT_MS } from '../../src/routes/web.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

describe.each(ENGINES)('a first screen that is never rendered (%s)', (engine) => {
  let t: TestApp;
  let dist: string;
  const skeleton = '<div class="boot" aria-busy="true">skeleton</div>';
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
    fs.mkdirSync(path.join(dist, 'ssr'));
    fs.writeFileSync(
      path.join(dist, 'ssr', 'ssr.js'),
      "export const FIRST_SCREEN_ATTRIBUTE = 'data-lectern-ssr';\nexport function renderFirstScreen() { return new Promise(() => {}); }\n",
    );
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      `<!doctype html><html><head><title>Lectern</title></head><body><div id="root"><!--lectern:screen-->${skeleton}<!--/lectern:screen--></div>${BOOT_MARKER}</body></html>`,
    );
    t = await startTestApp(engine, { webDist: dist });
    await t.lectern.services.accounts.createUser({ email: 'late@example.com', password: 'a long enough password', status: 'subscriber', username: 'Late reader' });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves each page without the screen once the limit has passed, and logs why', async () => {
    const reader = new TestClient(t.lectern.app);
    await reader.login('late@example.com', 'a long enough password');
    const warn = vi.spyOn(t.lectern.app.log, 'warn');
    try {
      // two at once: the second is not held behind the first's render
      const pages = await Promise.all([reader.get('/search/?q=whale'), reader.get('/search/?q=moby')]);
      for (const page of pages) {
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain(`<div id="root"><!--lectern:screen-->${skeleton}<!--/lectern:screen--></div>`);
        expect(page.body).not.toContain('data-lectern-ssr');
        // the page's data is there, as for any signed-in reader: the browser renders the screen from it
        expect(page.body).toContain('Late reader');
      }
      const why = warn.mock.calls.filter((call) => String(call[1]).includes(`not rendered within ${FIRST_SCREEN_LIMIT_MS} ms`));
      expect(why).toHaveLength(2);
    } finally {
      warn.mockRestore();
    }
  });
});
