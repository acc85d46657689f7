/**
 * The permanent attack suite (issue 26), every part generated from the route table, on one world per engine.
 *
 * The access-control matrix: every route x every role (anonymous, a
 * reader in trial, an expired reader, a subscriber, a content creator, an admin), on both engines. A role the gate
 * refuses gets 401 (not signed in) or 403, and nothing in the database changes; another reader's objects answer
 * 401/403/404 to everyone else (admins aside where they manage them: teams, notes); no answer to anyone carries the victim's data unless the route is the operators';
 * and nothing answers 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/app.ts';
import { APP_MESSAGES } from '@lectern/core';
import { ROUTES, UNSAFE, type Access, type TableRoute } from './route-table.ts';
import { buildWorld, changed, requestOf, ROLES, send, snapshot, VICTIM_MARK, type Role, type World } from './world.ts';
import { fuzzedRequest } from './fuzz.ts';

/** What the gate answers a role, or 'pass'. */
function gate(access: Access, role: Role): 401 | 403 | 'pass' {
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
const clientFor = async (world: World, route: TableRoute, role: Role) => (route.key === SIGN_OUT ? world.signIn(role) : world.clients[role]);

describe.each(ENGINES)('the attack suite on %s', (engine) => {
  let world: World;
  beforeAll(async () => {
    world = await buildWorld(engine);
  }, 120_000);
  afterAll(() => world.t.close());

  it('the victim’s own objects are real: the owner reads each', async () => {
    for (const route of ROUTES.filter((r) => r.owned && r.method === 'GET')) {
      const res = await send(world.victim, route, requestOf(world, route), world.victimToken);
      expect(res.statusCode, `${route.key}: ${res.body}`).toBe(200);
      expect(res.body.toLowerCase()).toContain(VICTIM_MARK);
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
      const caller = route.owned ? world.victim : route.access === 'public' || route.access === 'debug' ? world.clients.anonymous : world.clients.admin;
      for (const attempt of [{ csrf: false }, { csrf: false, headers: { 'x-csrftoken': stranger } }]) {
        const json = route.method === 'GET' ? undefined : (req.body ?? {});
        const res = await caller.request(route.method as 'POST', req.url, { json, ...attempt });
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
  it('leaves every role’s session standing for what follows', async () => {
    for (const role of ROLES.filter((r) => r !== 'anonymous')) expect((await world.clients[role].get('/u/information_for_javascript')).statusCode, role).toBe(200);
  });

  // The fuzz of every route's path, query and body (fast-check, a fixed seed, bounded runs), sent by a caller its
  // gate lets through: never a 5xx, a 400 names what is wrong, and a refusal (4xx) changes no table.
  const runs = Number(process.env.FUZZ_RUNS) || (engine === 'sqlite' ? 25 : 10);
  it.each(ROUTES.map((r) => [r.key, r] as const))('fuzz: %s', async (_key, route) => {
    const caller = route.key === SIGN_OUT ? await world.signIn('subscriber') : route.owned ? world.victim : gate(route.access, 'subscriber') === 'pass' ? world.clients.subscriber : world.clients.admin;
    const token = route.owned ? world.victimToken : world.tokens.subscriber;
    let before = await snapshot(world);
    await fc.assert(
      fc.asyncProperty(fuzzedRequest(route, world), async (req) => {
        const res = await caller.request(route.method as 'POST', req.url, {
          ...(req.form !== undefined ? { payload: req.form, headers: { 'content-type': 'application/x-www-form-urlencoded' } } : route.method === 'GET' ? {} : { json: req.body ?? {} }),
          ...(route.access === 'annotator' && req.form === undefined ? { headers: { 'x-annotator-auth-token': token } } : {}),
        });
        const shown = `${route.method} ${req.url} ${JSON.stringify(req.body ?? req.form)?.slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        if (res.statusCode >= 500) throw new Error(shown);
        if (res.statusCode === 400) expect(res.json().detail, shown).toBeTruthy();
        const after = await snapshot(world);
        const tables = changed(before, after);
        before = after;
        if (res.statusCode >= 400 && tables.length) throw new Error(`a refusal changed ${tables.join(', ')}: ${shown}`);
      }),
      { numRuns: runs, seed: Number(process.env.FUZZ_SEED) || 20261128 },
    );
  });
});
