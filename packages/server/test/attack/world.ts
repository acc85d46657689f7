/**
 * The attack suite's world: the real app on one engine with a hostile book, a video and a scripted title, its
 * scripted origin and a stand-in web build (so that the scripted origin's listener, the web app's pages and its
 * build's files are attacked too), a signed-in client for every role, and a victim reader whose objects (a playlist,
 * a note, a team with an invitation, a scripted frame opened in their browser) carry VICTIM_MARK or are theirs alone,
 * so that an answer leaking them is seen whatever its shape. `fill` gives each route's path, query and body from
 * the table.
 */
import path from 'node:path';
import { AUTH_TOKEN_HEADER, annotationPaths, teamPaths } from '@lectern/core';
import { sql } from 'kysely';
import { startTestApp, type Engine, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { hostileFilesEpub } from '../fixtures/hostile-files.ts';
import { scriptedEpub } from '../fixtures/scripted.ts';
import { makeWebDist } from '../helpers/web-dist.ts';
import { epubBook } from '../ingest/helpers.ts';
import { fillPath, type TableRoute } from './route-table.ts';

export const PASSWORD = 'a long enough password';
/** In the victim's playlist name, note text, team name and email: never in an answer to another account. */
export const VICTIM_MARK = 'victimmark';

export const ROLES = ['anonymous', 'trial', 'expired', 'subscriber', 'creator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface World {
  t: TestApp;
  clients: Record<Role, TestClient>;
  /** each role's annotation-store token ('' for the anonymous) */
  tokens: Record<Role, string>;
  victim: TestClient;
  victimToken: string;
  /** each role's browser on the scripted origin (holding no frame of the victim's) */
  scripted: Record<Role, TestClient>;
  /** the victim's browser on the scripted origin, bound to the frame it opened */
  scriptedVictim: TestClient;
  /** the world objects route-table params name */
  objects: Record<string, string>;
  /** a new session of a role's account (for sign-out, which ends the one it is sent with) */
  signIn(role: Role): Promise<TestClient>;
  /** a new subscriber, signed in */
  fresh(name: string): Promise<TestClient>;
}

const EMAILS: Record<Role, string> = {
  anonymous: '',
  trial: 'trial@example.com',
  expired: 'expired@example.com',
  subscriber: 'subscriber@example.com',
  creator: 'creator@example.com',
  admin: 'admin@example.com',
};

async function signedIn(t: TestApp, email: string, status: 'trial' | 'subscriber' | 'expired', role?: 'admin' | 'content-creator'): Promise<TestClient> {
  await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status, ...(role ? { role } : {}) });
  const client = new TestClient(t.lectern.app);
  await client.login(email, PASSWORD);
  return client;
}

/** The scripted origin's address in the world (never listened on: its listener is reached by inject). */
export const SCRIPTED_ORIGIN = 'http://books.localhost:8181';

export async function buildWorld(engine: Engine): Promise<World> {
  // debug mode: POST /debug/ is registered; a sign-in limit the suite never reaches; a scripted origin; a web build
  const web = makeWebDist();
  const started = await startTestApp(engine, { debugMode: true, loginRateLimit: 100_000, scriptedOrigin: SCRIPTED_ORIGIN, scriptedPort: 0, webDist: web.dir });
  const t: TestApp = {
    ...started,
    close: async () => {
      await started.close();
      web.remove();
    },
  };
  // three chapters: the third is past the sample, for readers only
  const words = `<p>${'Words of a chapter, read through. '.repeat(40)}</p>`;
  const book = await t.lectern.services.importer.importBytes(
    epubBook({
      identifier: 'urn:uuid:00000000-0000-4000-8000-0000000a77ac',
      title: 'Attack Book',
      metadata: ['<dc:publisher>Attack Press</dc:publisher>'],
      chapters: ['one', 'two', 'three'].map((n) => ({ path: `${n}.xhtml`, label: n, body: `<h1>${n}</h1>${words}` })),
    }),
    'attack.epub',
    { topics: ['Fiction'] },
  );
  const hostile = await t.lectern.services.importer.importBytes(hostileFilesEpub(), 'hostile.epub');
  const video = await t.lectern.services.importer.importPaths([path.join(import.meta.dirname, '..', 'fixtures', 'media', 'clip.mp4')]);
  const scriptedBook = await t.lectern.services.importer.importBytes(scriptedEpub(), 'scripted.epub', { allowScripts: true });
  const clients = {
    anonymous: new TestClient(t.lectern.app),
    trial: await signedIn(t, EMAILS.trial, 'trial'),
    expired: await signedIn(t, EMAILS.expired, 'expired'),
    subscriber: await signedIn(t, EMAILS.subscriber, 'subscriber'),
    creator: await signedIn(t, EMAILS.creator, 'subscriber', 'content-creator'),
    admin: await signedIn(t, EMAILS.admin, 'subscriber', 'admin'),
  } satisfies Record<Role, TestClient>;
  const tokens = {} as Record<Role, string>;
  for (const role of ROLES) {
    const res = await clients[role].get(annotationPaths.token());
    tokens[role] = res.statusCode === 200 ? res.body : '';
  }

  const victim = await signedIn(t, `${VICTIM_MARK}@example.com`, 'subscriber');
  const victimToken = (await victim.get(annotationPaths.token())).body;
  // the victim reads the scripted title: says yes to its scripts, gets a frame's address, opens it in their browser
  const consent = await victim.request('PUT', `/api/v1/book/${scriptedBook.book_id}/scripts-consent/`, { json: { allow: true } });
  if (consent.statusCode !== 200) throw new Error(`the victim's consent: ${consent.statusCode} ${consent.body}`);
  const frame = await victim.get(`/api/v1/book/${scriptedBook.book_id}/scripted-frame/?path=text%2Fone.xhtml`);
  if (frame.statusCode !== 200) throw new Error(`the victim's scripted frame: ${frame.statusCode} ${frame.body}`);
  const frameUrl = new URL(frame.json().url as string);
  const [, , frameToken = '', ...frameRest] = frameUrl.pathname.split('/');
  const scriptedVictim = new TestClient(t.lectern.scripted!);
  const opened = await scriptedVictim.get(frameUrl.pathname);
  if (opened.statusCode !== 200) throw new Error(`the victim's frame on the scripted origin: ${opened.statusCode} ${opened.body}`);
  const scripted = Object.fromEntries(ROLES.map((role) => [role, new TestClient(t.lectern.scripted!)])) as Record<Role, TestClient>;
  const detail = (await victim.get(`/api/v1/book/${book.book_id}/`)).json();
  const chapterUrl = `/api/v1/book/${book.book_id}/chapter/three.xhtml`;
  const playlist = (await victim.post('/api/v2/collections/', { name: `${VICTIM_MARK} playlist`, description: VICTIM_MARK })).json();
  await victim.post(`/api/v2/collections/${playlist.id}/add-content/`, { content: [chapterUrl] });
  const prefix = annotationPaths.prefix(detail.title_safe, book.book_id, 'three.xhtml');
  const note = await t.lectern.app.inject({
    method: 'POST',
    url: annotationPaths.annotations(prefix),
    headers: { [AUTH_TOKEN_HEADER]: victimToken },
    payload: { quote: 'chapter', text: `${VICTIM_MARK} note`, ranges: [] },
  });
  // a private note: the default lets the world read it (core's defaultPermissions)
  const own = [note.json().user as string];
  const privately = await t.lectern.app.inject({
    method: 'PUT',
    url: annotationPaths.annotation(prefix, note.json().id),
    headers: { [AUTH_TOKEN_HEADER]: victimToken },
    payload: { permissions: { read: own, update: own, delete: own, admin: own } },
  });
  if (privately.statusCode !== 200) throw new Error(`the victim's private note: ${privately.statusCode} ${privately.body}`);
  const team = await victim.post(teamPaths.create(), { name: `${VICTIM_MARK} team`, plan: 'pro', seats: 10, emails: [`${VICTIM_MARK}-guest@example.com`] });
  if (note.statusCode !== 200 && note.statusCode !== 201) throw new Error(`the victim's note: ${note.statusCode} ${note.body}`);
  if (team.statusCode !== 201 && team.statusCode !== 200) throw new Error(`the victim's team: ${team.statusCode} ${team.body}`);
  const teamView = team.json().team ?? team.json();
  const k = t.lectern.db.kysely;
  const invoice = await k.selectFrom('invoices').select('id').executeTakeFirst();
  const publisher = await k.selectFrom('publishers').select('slug').executeTakeFirst();
  const victimUser = await k.selectFrom('users').select('id').where('email', '=', `${VICTIM_MARK}@example.com`).executeTakeFirstOrThrow();
  const promo = await clients.admin.post('/api/v2/admin/promotion-codes/', { code: 'WORLD-CODE', kind: 'percent', amount: 10, plan: 'pro' });
  const announcement = await clients.admin.post('/api/v2/admin/announcements/', { message: 'World announcement' });
  const objects: Record<string, string> = {
    book: book.book_id,
    bookTitle: detail.title_safe,
    chapterPath: 'three.xhtml',
    chapterPathAnnotations: 'three.xhtml/annotations/',
    hostileBook: hostile.book_id,
    hostileChapter: 'text/chapter.xhtml',
    chapterUrl,
    media: video.imported[0]!.book_id,
    mediaPart: '01-clip.mp4',
    topic: 'fiction',
    publisher: publisher?.slug ?? 'no-publisher',
    plan: 'pro',
    playlist: playlist.id,
    note: `three.xhtml/annotations/${note.json().id}`,
    team: String(teamView.id),
    invitation: String(teamView.invitations?.[0]?.id ?? 'none'),
    member: '00000000-0000-4000-8000-000000000000',
    victimUser: String(victimUser.id),
    invoice: String(invoice?.id ?? '1'),
    promo: promo.json().code ?? 'world-code',
    announcement: String(announcement.json().id),
    nobody: '999999',
    scriptedBook: scriptedBook.book_id,
    frameToken: decodeURIComponent(frameToken),
    scriptedChapterPath: frameRest.map(decodeURIComponent).join('/'),
    playlistPage: `collection/${playlist.id}`,
    adminPage: 'titles',
  };
  const signIn = async (role: Role) => {
    const client = new TestClient(t.lectern.app);
    if (role !== 'anonymous') await client.login(EMAILS[role], PASSWORD);
    return client;
  };
  const fresh = (name: string) => signedIn(t, `${name}@example.com`, 'subscriber');
  return { t, clients, tokens, victim, victimToken, scripted, scriptedVictim, objects, signIn, fresh };
}

/**
 * A route's well-formed request in this world: the path filled, `{book}`-style holes in the query and body too
 * (`extra` adds holes, and `body` replaces the table's).
 */
export function requestOf(world: World, route: TableRoute, extra: Record<string, string> = {}, body: unknown = route.body): { url: string; body: unknown } {
  const value = (name: string) => extra[name] ?? world.objects[name] ?? `no-${name}`;
  const url = fillPath(route.url, (param) => {
    const v = value(route.params?.[param] ?? param);
    return param === '*' ? v.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(v);
  });
  const holes = (s: string) => s.replace(/\{(\w+)\}/g, (_m, name: string) => value(name));
  const query = route.query ? `?${new URLSearchParams(Object.entries(route.query).map(([k, v]): [string, string] => [k, holes(v)]))}` : '';
  return { url: url + query, body: body === undefined ? undefined : JSON.parse(holes(JSON.stringify(body))) };
}

/** The client a role sends a route with: its browser on the scripted origin for that origin's routes. */
export function clientOf(world: World, route: TableRoute, role: Role | 'victim'): TestClient {
  if (route.served === 'scripted') return role === 'victim' ? world.scriptedVictim : world.scripted[role];
  return role === 'victim' ? world.victim : world.clients[role];
}

/** Sends a route's request as a client (with the annotation store's token when the route is the store's). */
export function send(client: TestClient, route: TableRoute, req: { url: string; body: unknown }, token: string, opts: { csrf?: boolean } = {}) {
  const headers: Record<string, string> = route.access === 'annotator' && token ? { [AUTH_TOKEN_HEADER]: token } : {};
  const json = route.method === 'GET' ? undefined : (req.body ?? {});
  return client.request(route.method, req.url, { json, headers, ...opts });
}

/**
 * Tables that change on a refusal by design: sessions seen, sign-in counters, per-address limits, analytics; and what
 * the server's own timers write meanwhile, whatever the requests: the scheduled jobs' claims (a minute's tick may
 * fall between two snapshots) and the notices to other servers (`server_changes`: a trial's expiry tells them of the
 * account; each playlist change tells them again, so 200 identical adds are 200 notices and one item).
 */
const VOLATILE = new Set(['sessions', 'sign_in_attempts', 'analytics_events', 'kysely_migration', 'kysely_migration_lock', 'sqlite_sequence', 'job_claims', 'server_changes']);

/** A fingerprint of every table's content (FTS shadow tables aside: they follow search_docs). */
export async function snapshot(world: Pick<World, 't'>): Promise<Record<string, string>> {
  const k = world.t.lectern.db.kysely;
  const out: Record<string, string> = {};
  if (world.t.lectern.db.engine === 'postgres') {
    const tables = (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(k)).rows
      .map((r) => r.name)
      .filter((n) => !VOLATILE.has(n));
    const union = tables.map((n) => `select '${n}' as name, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${n}" t`).join(' union all ');
    for (const row of (await sql<{ name: string; h: string }>`${sql.raw(union)}`.execute(k)).rows) out[row.name] = row.h;
  } else {
    const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like '%_fts%'`.execute(k)).rows.map((r) => r.name).filter((n) => !VOLATILE.has(n));
    for (const n of tables) out[n] = JSON.stringify((await sql`select * from ${sql.table(n)}`.execute(k)).rows);
  }
  return out;
}

/** Every table's row count (the volatile ones and the logs that grow per request aside). */
export async function rowCounts(world: Pick<World, 't'>, skip: readonly string[] = []): Promise<Record<string, number>> {
  const k = world.t.lectern.db.kysely;
  const names =
    world.t.lectern.db.engine === 'postgres'
      ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(k)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like '%_fts%'`.execute(k)).rows;
  const tables = names.map((r) => r.name).filter((n) => !VOLATILE.has(n) && !skip.includes(n));
  const union = tables.map((n) => `select '${n}' as name, count(*) as n from "${n}"`).join(' union all ');
  return Object.fromEntries((await sql<{ name: string; n: number | string }>`${sql.raw(union)}`.execute(k)).rows.map((r) => [r.name, Number(r.n)]));
}

/** The tables whose content differs between two snapshots. */
export function changed(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys(after).filter((n) => before[n] !== after[n]);
}
