/**
 * Several servers on one database (docs/decisions.md "Scheduled jobs once across servers"): scheduled jobs run once per
 * period across them, a crashed claimer's claim expires, and the sign-in and registration limits count across them.
 * Each is current on what another changed once its poll of the change tables has run (the poll is called here, as its
 * one-second timer does): sessions, playlists and their ETags, new titles.
 */
import { accountEntryPaths, searchPaths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClaimsRepository } from '../../src/repositories/job-claims.ts';
import { JOB_CLAIM_LEASE_MS, ScheduledJobs } from '../../src/services/scheduled-jobs.ts';
import { ENGINES, startAnotherServer, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { epubBook } from '../ingest/helpers.ts';

const LIMIT = 4;
const MINUTE = 60_000;

describe.each(ENGINES)('several servers on one %s database', (engine) => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp(engine, { loginRateLimit: LIMIT });
    b = await startAnotherServer(a, { loginRateLimit: LIMIT });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("both servers' ticks of one period run the job's work once; the next period runs again", async () => {
    let runs = 0;
    const work = async () => {
      runs++;
    };
    const ticks = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? b : a).lectern.services.scheduled.runOnce('test: count', 24 * 60 * MINUTE, work)),
    );
    expect(runs).toBe(1);
    expect(ticks.filter(Boolean)).toHaveLength(1);
    // a period later (the same database, a clock a day on), the job runs again, once
    const later = new Date(Date.now() + 24 * 60 * MINUTE);
    const repo = new JobClaimsRepository(a.lectern.db.kysely);
    const servers = ['x', 'y'].map((id) => new ScheduledJobs(repo, id, () => later));
    await Promise.all(servers.map((s) => s.runOnce('test: count', 24 * 60 * MINUTE, work)));
    expect(runs).toBe(2);
  });

  it("the app's own jobs were claimed once per period by one of the two servers at start", async () => {
    // both start together, as servers behind one proxy do: each runs its jobs' first tick when ready
    await Promise.all([a.lectern.app.ready(), b.lectern.app.ready()]);
    const claims = await a.lectern.db.kysely.selectFrom('job_claims').selectAll().where('job', 'not like', 'test:%').execute();
    const ids = [a, b].map((t) => t.lectern.services.scheduled.serverId);
    expect(new Set(claims.map((c) => c.job))).toEqual(
      new Set(['retention purge (sessions, sign-in counters, analytics)', 'trial and subscription expiry', 'team renewals and expiry', 'newsletter of new titles']),
    );
    // one row per (job, period) is the primary key; each claimed by one of the two servers and finished
    for (const c of claims) {
      expect(ids).toContain(c.claimed_by);
      expect(c.finished_at).not.toBeNull();
    }
  });

  it("each server's console health page shows the jobs' last runs, whichever server ran them", async () => {
    for (const t of [a, b]) {
      const { jobs } = await t.lectern.services.admin.dashboard.healthReport();
      // (each server's own: the poll of changes made elsewhere, the sweep of its store's orphaned uploads)
      const once = jobs.filter((j) => !['new editions made elsewhere', 'uploads no import will run'].includes(j.name));
      expect(once).toHaveLength(4);
      for (const j of once) expect(j).toMatchObject({ last_run_at: expect.any(String), last_ok: true });
    }
  });

  it("a crashed claimer's claim expires: another server takes the period over after the lease, not before", async () => {
    const repo = new JobClaimsRepository(a.lectern.db.kysely);
    const t0 = new Date('2030-01-01T00:00:00Z');
    const everyMs = 60 * MINUTE;
    // the claimer is killed mid-run: its work never finishes
    const dead = new ScheduledJobs(repo, 'dead-server', () => t0);
    void dead.runOnce('test: crash', everyMs, () => new Promise(() => {}));
    await expect.poll(() => a.lectern.db.kysely.selectFrom('job_claims').select('claimed_by').where('job', '=', 'test: crash').execute()).toEqual([{ claimed_by: 'dead-server' }]);
    let runs = 0;
    const work = async () => {
      runs++;
    };
    const early = new ScheduledJobs(repo, 'live-server', () => new Date(t0.getTime() + JOB_CLAIM_LEASE_MS - 1000));
    expect(await early.runOnce('test: crash', everyMs, work)).toBe(false);
    const late = ['p', 'q'].map((id) => new ScheduledJobs(repo, id, () => new Date(t0.getTime() + JOB_CLAIM_LEASE_MS)));
    expect((await Promise.all(late.map((s) => s.runOnce('test: crash', everyMs, work)))).filter(Boolean)).toHaveLength(1);
    expect(runs).toBe(1);
  });

  it('a failed run drops its claim: the next tick, on either server, tries again', async () => {
    await expect(a.lectern.services.scheduled.runOnce('test: fails', 24 * 60 * MINUTE, () => Promise.reject(new Error('no mail server')))).rejects.toThrow('no mail server');
    let runs = 0;
    expect(
      await b.lectern.services.scheduled.runOnce('test: fails', 24 * 60 * MINUTE, async () => {
        runs++;
      }),
    ).toBe(true);
    expect(runs).toBe(1);
  });

  /** A sign-in on `t` from one address, with the anonymous CSRF token of `t`. */
  const post = async (t: TestApp, url: string, payload: object, remoteAddress: string) => {
    const anonymous = await t.lectern.app.inject({ method: 'GET', url: '/healthz', remoteAddress });
    const csrf = anonymous.cookies.find((c) => c.name === 'csrftoken')!.value;
    return t.lectern.app.inject({ method: 'POST', url, remoteAddress, headers: { cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf }, payload });
  };

  it('the sign-in limit counts attempts split between the servers', async () => {
    const email = 'split@example.com';
    await a.lectern.services.accounts.createUser({ email, password: 'a long enough password', status: 'subscriber' });
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push((await post(i % 2 ? b : a, '/login/', { email, password: 'wrong password' }, '198.51.100.7')).statusCode);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), 429]);
    // the right password on either server is still refused this minute
    expect((await post(a, '/login/', { email, password: 'a long enough password' }, '198.51.100.7')).statusCode).toBe(429);
  });

  it('the registration limit counts calls split between the servers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await post(i % 2 ? b : a, accountEntryPaths.register(), { email: `split${i}@example.com`, password: 'short' }, '198.51.100.8')).statusCode);
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
  });

  /** A client of server `t` holding the same cookies as `c` (a load balancer sends the next request elsewhere). */
  const on = (t: TestApp, c: TestClient) => {
    const moved = new TestClient(t.lectern.app);
    for (const [k, v] of c.cookies) moved.cookies.set(k, v);
    return moved;
  };
  const poll = (t: TestApp) => Promise.all([t.lectern.services.catalogChanges.poll(), t.lectern.services.serverChanges.poll()]);

  it('a reader signed in on one server is signed in on the other; signed out on one, out on the other after its poll', async () => {
    // the pollers' first call only marks where they start (services/server-changes.ts)
    await poll(b);
    const [onA] = await signedInSubscribers(a.lectern, ['roams@example.com']);
    const onB = on(b, onA);
    expect((await onB.get('/api/v2/collections/')).statusCode).toBe(200);
    expect((await onA.post('/logout/')).statusCode).toBeLessThan(400);
    // B had this session in memory (kept a second); its poll hears of the sign-out and forgets it
    await poll(b);
    expect((await onB.get('/api/v2/collections/')).statusCode).toBe(401);
  });

  it("a playlist changed on one server: the other's ETag moves once its poll has run (no 304 for the old list)", async () => {
    await poll(b);
    const [onA] = await signedInSubscribers(a.lectern, ['lists@example.com']);
    const onB = on(b, onA);
    for (const url of ['/api/v2/collections/', '/api/v2/collections/?content=none']) {
      const first = await onB.get(url);
      expect(first.statusCode).toBe(200);
      const etag = String(first.headers.etag);
      // B answers 304 while nothing changed (its counter kept in memory)
      expect((await onB.get(url, { 'if-none-match': etag })).statusCode).toBe(304);
      const name = `Made on A ${url.length}`;
      expect((await onA.post('/api/v2/collections/', { name })).statusCode).toBe(201);
      await poll(b);
      const after = await onB.get(url, { 'if-none-match': etag });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(etag);
      expect(after.body).toContain(name);
    }
  });

  it('a title imported through one server is in the other\'s home and catalog once its poll has run', async () => {
    await poll(b);
    const [onA] = await signedInSubscribers(a.lectern, ['newest@example.com']);
    const onB = on(b, onA);
    // B has read (and keeps for a minute) the newest titles before the import
    expect((await onB.get(searchPaths.home())).statusCode).toBe(200);
    const book = epubBook({
      identifier: 'urn:uuid:5e7e0000-0000-4000-8000-00000000a26a',
      title: 'Imported On A',
      creator: 'Ann Server',
      chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Words of the first server. '.repeat(30)}</p>` }],
    });
    const { book_id } = await a.lectern.services.importer.importBytes(book, 'a.epub');
    await poll(b);
    const home = await onB.get(searchPaths.home());
    expect(home.body).toContain(book_id);
    expect((await onB.get(`/api/v1/book/${book_id}/`)).statusCode).toBe(200);
  });
});
