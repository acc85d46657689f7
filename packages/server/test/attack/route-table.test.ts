/**
 * Every route the real app registers has an entry in the attack suite's table, and every entry is a real route: a
 * new route fails here until it is classified, and then meets the access matrix, the CSRF check and the fuzz.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROUTE_TABLE, ROUTES } from './route-table.ts';

describe('the attack suite’s route table', () => {
  let t: TestApp;
  beforeAll(async () => {
    // debug mode: POST /debug/ exists in it, and must be classified too
    t = await startTestApp('sqlite', { debugMode: true });
  });
  afterAll(() => t.close());

  it('has an entry for every registered route (HEAD answers as its GET)', () => {
    const registered = [...new Set(t.lectern.routes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`))].sort();
    expect(registered.length).toBeGreaterThan(100);
    expect(registered.filter((key) => !(key in ROUTE_TABLE)), 'routes the attack suite has no entry for').toEqual([]);
    expect(Object.keys(ROUTE_TABLE).filter((key) => !registered.includes(key)), 'entries for no route').toEqual([]);
    // every HEAD is its GET's twin, so testing the GET covers it
    for (const r of t.lectern.routes.filter((r) => r.method === 'HEAD')) expect(ROUTE_TABLE[`GET ${r.url}`], r.url).toBeDefined();
  });

  it('names a world object for every path parameter', () => {
    for (const route of ROUTES) {
      const names = [...route.url.matchAll(/:(\w+)|(\*)/g)].map((m) => m[1] ?? '*');
      expect(Object.keys(route.params ?? {}).sort(), route.key).toEqual(names.sort());
    }
  });
});
