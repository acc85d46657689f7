/**
 * The permanent attack suite (docs/decisions.md "The permanent attack suite"), every part generated from the route table, on one world per engine.
 *
 * The access-control matrix: every route x every role (anonymous, a
 * reader in trial, an expired reader, a subscriber, a content creator, an admin), on both engines. A role the gate
 * refuses gets 401 (not signed in) or 403, and nothing in the database changes; another reader's objects answer
 * 401/403/404 to everyone else (admins aside where they manage them: teams, notes); no answer to anyone carries the victim's data unless the route is the operators';
 * and nothing answers 5xx.
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/app.ts';
import { APP_MESSAGES, AUTH_TOKEN_HEADER } from '@lectern/core';
import { ROUTES, UNSAFE, type Access, type TableRoute } from './route-table.ts';
import { buildWorld, changed, clientOf, requestOf, ROLES, rowCounts, send, snapshot, VICTIM_MARK, type Role, type World } from './world.ts';
import { tally, type TestClient } from '../helpers/client.ts';
import { fuzzedRequest, RAW_PAGE_PATHS } from './fuzz.ts';

/** What the gate answers a role, or 'pass'. */
function gate(access: Access, role: Role): 401 | 403 | 404 | 'pass' {
  // the scripted origin's token is bound to the victim's browser: no role's browser holds it
  if (access === 'frame') return 404;
  // the annotation store answers the anonymous what the world may read
  if (access === 'public' || access === 'debug' || access === 'annotator') return 'pass';
  if (access === 'capability') return 403;
  if (role === 'anonymous') return 401;
  if (access === 'account') return 'pass';
  if (access === 'reader') return role === 'expired' ? 403 : 'pass';
  if (access === 'creator') return role === 'creator' || role === 'admin' ? 'pass' : 403;
  return role === 'admin' ? 'pass' : 403;
}

/** Where a role may see other people's data: the operators' routes past their gate. */
const mayReadOthers = (route: TableRoute, role: Role) => (route.access === 'admin' || route.access === 'creator') && gate(route.access, role) === 'pass';

const SIGN_OUT = 'POST /logout/';
/** The client a role sends a route with: sign-out gets a session of its own, the others share the role's. */
const clientFor = async (world: World, route: TableRoute, role: Role) => (route.key === SIGN_OUT ? world.signIn(role) : clientOf(world, route, role));

describe.each(ENGINES)('the attack suite on %s', (engine) => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(engine);
  }, 120_000);
  afterAll(() => world.t.close());
  /** The app on a real socket (once: the creations and the raw addresses both use it). */
  let listened: Promise<string> | undefined;
  const listening = () => (listened ??= world.t.lectern.app.listen({ host: '127.0.0.1', port: 0 }));

  it('the victim’s own objects are real: the owner reads each', async () => {
    for (const route of ROUTES.filter((r) => r.owned && r.method === 'GET')) {
      const res = await send(world.victim, route, requestOf(world, route), world.victimToken);
      expect(res.statusCode, `${route.key}: ${res.body}`).toBe(200);
      expect(res.body.toLowerCase()).toContain(VICTIM_MARK);
    }
  });

  it('the victim’s scripted frame is real: the browser that opened it reads it, on the scripted origin', async () => {
    for (const route of ROUTES.filter((r) => r.access === 'frame')) {
      const res = await send(clientOf(world, route, 'victim'), route, requestOf(world, route), '');
      expect(res.statusCode, `${route.key}: ${res.body.slice(0, 200)}`).toBe(200);
    }
  });

  it('refuses every role its gate refuses, and every other account the victim’s objects, changing nothing', async () => {
    const failures: string[] = [];
    let before = await snapshot(world);
    for (const route of ROUTES) {
      const req = requestOf(world, route);
      for (const role of ROLES) {
        const expected = gate(route.access, role);
        if (expected === 'pass' && (!route.owned || (route.operators && role === 'admin'))) continue;
        const res = await send(await clientFor(world, route, role), route, req, world.tokens[role]);
        const allowed = expected === 'pass' ? [401, 403, 404] : [expected];
        if (!allowed.includes(res.statusCode)) failures.push(`${route.key} as ${role}: ${res.statusCode} (expected ${allowed.join('/')}) ${res.body.slice(0, 200)}`);
        if (res.body.toLowerCase().includes(VICTIM_MARK)) failures.push(`${route.key} as ${role}: the victim's data ${res.body.slice(0, 200)}`);
      }
      const after = await snapshot(world);
      const tables = changed(before, after);
      if (tables.length) failures.push(`${route.key}: a refusal changed ${tables.join(', ')}`);
      before = after;
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('lets every role its gate lets through past it, never 5xx, never with another reader’s data', async () => {
    const failures: string[] = [];
    for (const route of ROUTES.filter((r) => !r.owned)) {
      const req = requestOf(world, route);
      for (const role of ROLES) {
        if (gate(route.access, role) !== 'pass') continue;
        const res = await send(await clientFor(world, route, role), route, req, world.tokens[role]);
        if (res.statusCode >= 500 || ((res.statusCode === 401 || res.statusCode === 403) && !route.mayDeny))
          failures.push(`${route.key} as ${role}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (!mayReadOthers(route, role) && res.body.toLowerCase().includes(VICTIM_MARK)) failures.push(`${route.key} as ${role}: the victim's data ${res.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
  // CSRF (library-playlists-account.md §7): every unsafe route, sent by a caller its gate lets through (the victim on
  // their own objects) with the session cookie and the csrftoken cookie but no X-CSRFToken (a cross-site form's
  // request), or with another session's token, is refused with 403 and changes nothing. The annotation store is
  // the one exemption: its token header is its defence, and without it nothing there is written either.
  it('refuses every unsafe route without the CSRF token, changing nothing', async () => {
    const failures: string[] = [];
    const stranger = world.clients.subscriber.cookies.get('csrftoken')!;
    let before = await snapshot(world);
    for (const route of ROUTES.filter((r) => UNSAFE(r.method))) {
      const req = requestOf(world, route);
      const caller = clientOf(world, route, route.owned ? 'victim' : route.access === 'public' || route.access === 'debug' ? 'anonymous' : 'admin');
      for (const attempt of [{ csrf: false }, { csrf: false, headers: { 'x-csrftoken': stranger } }]) {
        const json = route.method === 'GET' ? undefined : (req.body ?? {});
        const res = await caller.request(route.method, req.url, { json, ...attempt });
        if (route.access === 'annotator') {
          if (![401, 403, 404].includes(res.statusCode)) failures.push(`${route.key} without the store's token: ${res.statusCode} ${res.body.slice(0, 200)}`);
        } else if (res.statusCode !== 403 || res.json().detail !== APP_MESSAGES.csrfFailed) {
          failures.push(`${route.key} (${attempt.headers ? "another session's token" : 'no token'}): ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
      const after = await snapshot(world);
      const tables = changed(before, after);
      if (tables.length) failures.push(`${route.key}: a refused request changed ${tables.join(', ')}`);
      before = after;
    }
    expect(failures).toEqual([]);
  }, 120_000);
  // Over a real socket: an address goes as it is, where inject (like fetch) would first resolve it as a URL.
  it('answers every address sent as it is (RAW_PAGE_PATHS) to every role without a 5xx, a 400 naming what is wrong', async () => {
    const { hostname, port } = new URL(await listening());
    const get = (client: TestClient, rawPath: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const req = http.request({ host: hostname, port, path: rawPath, method: 'GET', headers: cookie ? { cookie } : {} }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const failures: string[] = [];
    for (const url of RAW_PAGE_PATHS) {
      for (const role of ROLES) {
        const res = await get(world.clients[role], url);
        const detail = res.status === 400 ? (JSON.parse(res.body) as { detail?: string }).detail : 'not asked';
        if (res.status >= 500 || !detail) failures.push(`GET ${url} as ${role}: ${res.status} ${res.body.slice(0, 200)}`);
        if (res.body.toLowerCase().includes(VICTIM_MARK)) failures.push(`GET ${url} as ${role}: the victim's data`);
        if (res.body.includes('root:x:0:0') || res.body.includes('"name": "lectern"')) failures.push(`GET ${url} as ${role}: a file outside the build`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('leaves every role’s session standing for what follows', async () => {
    for (const role of ROLES.filter((r) => r !== 'anonymous')) expect((await world.clients[role].get('/u/information_for_javascript')).statusCode, role).toBe(200);
  });

  // 200 identical requests at once on every create route, over real sockets (on SQLite app.inject alone
  // interleaves them too little to show a race): never a 5xx, one succeeds and the others are told it exists (or,
  // where the route is idempotent, all succeed), and every table grows by what one such request makes.
  describe('200 identical creations at once', () => {
    let base: string;
    beforeAll(async () => {
      base = await listening();
    });
    /** Logs that keep a line per request, refused or not. */
    const LOGS = ['audit_log', 'search_selections'];
    /** The annotation store's token of a caller the table sends (the store takes no cookie). */
    const tokenOf = (client: TestClient): string => {
      if (client === world.victim) return world.victimToken;
      const role = ROLES.find((r) => world.clients[r] === client);
      return role ? world.tokens[role] : '';
    };
    const overHttp = async (client: TestClient, route: TableRoute, req: { url: string; body: unknown }) => {
      const res = await fetch(base + req.url, {
        method: route.method,
        headers: {
          'content-type': 'application/json',
          cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          'x-csrftoken': client.cookies.get('csrftoken') ?? '',
          ...(route.access === 'annotator' ? { [AUTH_TOKEN_HEADER]: tokenOf(client) } : {}),
        },
        body: JSON.stringify(req.body ?? {}),
      });
      return { status: res.status, body: await res.text() };
    };
    it.each(ROUTES.filter((r) => r.create).map((r) => [r.key, r] as const))('%s', async (_key, route) => {
      const create = route.create!;
      const callerFor = async (n: string) =>
        create.caller === 'fresh' ? world.fresh(`creator-of-${n}-${route.key.replace(/\W+/g, '-')}`) : route.owned ? world.victim : gate(route.access, 'subscriber') === 'pass' ? world.clients.subscriber : world.clients.admin;
      const variant = (n: string, nid: string) => requestOf(world, route, { n, nid }, create.body ?? route.body);
      // the reference: one request alone, and what it adds to each table (after a first one, which may make what a
      // caller's first use makes: a default playlist, the day's reading rows)
      const one = await callerFor('one');
      if (!create.caller) await overHttp(one, route, variant('zero', '0000000000a0'));
      if (create.replaces) await overHttp(one, route, variant('two', '0000000000a2'));
      const start = await rowCounts(world, LOGS);
      // a replacement of a whole set is measured with the same set as the 200
      const alone = await overHttp(one, route, create.replaces ? variant('two', '0000000000a2') : variant('one', '0000000000a1'));
      expect(alone.status, alone.body).toBeLessThan(300);
      const afterOne = await rowCounts(world, LOGS);
      // the 200
      const two = create.caller ? await callerFor('two') : one;
      const before = await rowCounts(world, LOGS);
      const req = variant('two', '0000000000a2');
      const results = await Promise.all(Array.from({ length: 200 }, () => overHttp(two, route, req)));
      const statuses = results.map((r) => r.status);
      const fivexx = results.find((r) => r.status >= 500);
      expect(fivexx, fivexx && `${fivexx.status} ${fivexx.body}`).toBeUndefined();
      const succeeded = statuses.filter((s) => s < 300).length;
      if (create.succeed === 'some') expect(succeeded, JSON.stringify(tally(statuses))).toBeGreaterThan(0);
      else expect(succeeded, JSON.stringify(tally(statuses))).toBe(create.succeed === 'one' ? 1 : 200);
      for (const r of results.filter((r) => r.status >= 300)) expect(r.status, r.body).toBeLessThan(500);
      const after = await rowCounts(world, LOGS);
      const grown = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(b).map((n) => [n, b[n]! - (a[n] ?? 0)]).filter(([, d]) => d !== 0));
      // a fresh caller's own account rows are the same for both
      expect(grown(before, after)).toEqual(grown(start, afterOne));
    }, 60_000);
  });
  // The fuzz of every route's path, query and body (fast-check, a fixed seed, bounded runs), sent by a caller its
  // gate lets through: never a 5xx, a 400 names what is wrong, and a refusal (4xx) changes no table.
  const runs = Number(process.env.FUZZ_RUNS) || (engine === 'sqlite' ? 25 : 10);
  // the web app's pages and build files share two handlers (the not-found handler, the static plugin): a few runs each
  const runsOf = (route: TableRoute) => (route.served === 'page' || route.served === 'file' ? Math.min(runs, 5) : runs);
  it.each(ROUTES.map((r) => [r.key, r] as const))('fuzz: %s', async (_key, route) => {
    const caller =
      route.key === SIGN_OUT ? await world.signIn('subscriber') : clientOf(world, route, route.owned || route.access === 'frame' ? 'victim' : gate(route.access, 'subscriber') === 'pass' ? 'subscriber' : 'admin');
    const token = route.owned ? world.victimToken : world.tokens.subscriber;
    let before = await snapshot(world);
    await fc.assert(
      fc.asyncProperty(fuzzedRequest(route, world), async (req) => {
        const res = await caller.request(route.method, req.url, {
          ...(req.raw
            ? { payload: req.raw.payload, headers: { 'content-type': req.raw.contentType } }
            : req.form !== undefined
              ? { payload: req.form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }
              : route.method === 'GET'
                ? {}
                : { json: req.body ?? {} }),
          ...(route.access === 'annotator' && req.form === undefined ? { headers: { 'x-annotator-auth-token': token } } : {}),
        });
        const shown = `${route.method} ${req.url} ${JSON.stringify(req.raw ?? req.body ?? req.form)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        // the server's own words for it (the console's recent errors keep them)
        if (res.statusCode >= 500) throw new Error(`${shown}: ${world.t.lectern.services.admin.errors.list()[0]?.message}`);
        if (res.statusCode === 400) expect(res.json().detail, shown).toBeTruthy();
        const after = await snapshot(world);
        const tables = changed(before, after).filter((n) => !route.refusalWrites?.tables.includes(n));
        before = after;
        if (res.statusCode >= 400 && tables.length) throw new Error(`a refusal changed ${tables.join(', ')}: ${shown}`);
      }),
      { numRuns: runsOf(route), seed: Number(process.env.FUZZ_SEED) || 20261128 },
    );
  });
});
