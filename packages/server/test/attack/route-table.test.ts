/**
 * Every route the real app registers has an entry in the attack suite's table, and every entry is a real route: a
 * new route fails here until it is classified, and then meets the access matrix, the CSRF check and the fuzz. The
 * same holds for the scripted origin's listener, the web app's build files (served by the static plugin, one route
 * each) and the web app's pages (router.tsx's addresses, which the server answers with index.html).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lectern } from '../../src/app.ts';
import { scriptedOriginRoutes } from '../../src/scripted-origin.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeWebDist, SERVED_BUILD_FILES } from '../helpers/web-dist.ts';
import { paramsOf, ROUTE_TABLE, ROUTES, SCRIPTED_ROUTE_TABLE, WEB_FILE_TABLE, WEB_PAGE_TABLE } from './route-table.ts';

const REPO = path.resolve(import.meta.dirname, '../../../..');
/** The real build, when `npm run build` has made one (npm test builds before the tests run). */
const REAL_DIST = path.join(REPO, 'packages/web/dist');
const ORIGIN = 'http://books.localhost:8181';

/** The app's registered routes as "METHOD url" (HEAD answers as its GET: testing the GET covers it). */
function registered(lectern: Lectern): string[] {
  for (const r of lectern.routes.filter((r) => r.method === 'HEAD')) expect(lectern.routes.some((g) => g.method === 'GET' && g.url === r.url), r.url).toBe(true);
  return [...new Set(lectern.routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`))].sort();
}

/** A registered route that is a file of the build folder: the static plugin's, one per file. */
const isBuildFile = (dist: string, key: string) => {
  const [method, url] = key.split(' ') as [string, string];
  const file = path.join(dist, url);
  return method === 'GET' && file.startsWith(dist + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile();
};

describe('the attack suite’s route table', () => {
  let t: TestApp;
  let dist: ReturnType<typeof makeWebDist>;
  beforeAll(async () => {
    dist = makeWebDist();
    // debug mode: POST /debug/ exists in it, and must be classified too; a scripted origin: its listener's routes
    t = await startTestApp('sqlite', { debugMode: true, webDist: dist.dir, scriptedOrigin: ORIGIN, scriptedPort: 0 });
  });
  afterAll(async () => {
    await t.close();
    dist.remove();
  });

  it('has an entry for every registered route, the build’s files being the static plugin’s', () => {
    const routes = registered(t.lectern);
    expect(routes.length).toBeGreaterThan(100);
    const files = routes.filter((key) => isBuildFile(dist.dir, key));
    // the table's build files are exactly those the server registers for the stand-in build
    expect(files).toEqual(Object.keys(WEB_FILE_TABLE).sort());
    expect(files.map((key) => key.slice('GET /'.length)).sort()).toEqual([...SERVED_BUILD_FILES].sort());
    const code = routes.filter((key) => !files.includes(key));
    expect(code.filter((key) => !(key in ROUTE_TABLE)), 'routes the attack suite has no entry for').toEqual([]);
    expect(Object.keys(ROUTE_TABLE).filter((key) => !code.includes(key)), 'entries for no route').toEqual([]);
  });

  it.runIf(fs.existsSync(path.join(REAL_DIST, 'index.html')))('has an entry for every route the real build adds: its files alone', async () => {
    const real = await startTestApp('sqlite', { debugMode: true, webDist: REAL_DIST });
    try {
      const routes = registered(real.lectern);
      expect(routes.filter((key) => !(key in ROUTE_TABLE) && !isBuildFile(REAL_DIST, key)), 'routes the attack suite has no entry for').toEqual([]);
    } finally {
      await real.close();
    }
  });

  it('has an entry for every route of the scripted origin’s listener', async () => {
    const scripted = t.lectern.scripted!;
    await scripted.ready();
    const routes = Object.keys(SCRIPTED_ROUTE_TABLE);
    // what the listener registered (HEAD answers as its GET)
    const listed = [...new Set(scriptedOriginRoutes(scripted).filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`))];
    expect(listed.sort()).toEqual(routes.sort());
    for (const key of routes) {
      const [method, url] = key.split(' ') as [string, string];
      expect(scripted.hasRoute({ method, url }), key).toBe(true);
    }
  });

  it('has an entry for every page address of the web app’s router, and none for an address it lacks', () => {
    const router = fs.readFileSync(path.join(REPO, 'packages/web/src/app/router.tsx'), 'utf8');
    const addresses = [...router.matchAll(/<Route\s[^>]*\bpath="([^"]*)"/g)].map((m) => `GET /${m[1]}`);
    // the index route (`<Route index …>`) is the root address
    if (/<Route\s+index\b/.test(router)) addresses.push('GET /');
    expect(addresses.length).toBeGreaterThan(20);
    expect(addresses.filter((key) => !(key in WEB_PAGE_TABLE)), 'pages the attack suite has no entry for').toEqual([]);
    expect(Object.keys(WEB_PAGE_TABLE).filter((key) => !addresses.includes(key)), 'entries for no page').toEqual([]);
  });

  it('names a world object for every path parameter', () => {
    for (const route of ROUTES) expect(Object.keys(route.params ?? {}).sort(), route.key).toEqual(paramsOf(route.url).sort());
  });
});
