/**
 * The marketing modules (docs/decisions.md "The marketing modules") on both engines, with a real SMTP server catching
 * what Lectern sends: the newsletter's opt-in and opt-out (400s naming the field, 401 for visitors, CSRF), the
 * scheduled job called with the times it would run at (once per period, to opted-in readers only, the titles added
 * since the last issue, no empty mail), the mail's unsubscribe link working without signing in (idempotent; a forged,
 * expired or other-purpose token refused), the home blocks dismissed per account, and buy links from BUY_LINK_TEMPLATE.
 */
import {
  bookDetailSchema,
  contentMetadataSchema,
  homeModulesSchema,
  MARKETING_MESSAGES,
  marketingPaths,
  newsletterSampleSchema,
  pagedSchema,
  transformationPlaylistListSchema,
  transformationOwnListSchema,
  adminPaths,
  auditPageSchema,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedTokens } from '../../src/services/signed-tokens.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';
import { bodyOf, startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

const DAY = 86_400_000;
const SECRET = 'test-secret-'.padEnd(40, 'x');
const unsubscribeLink = (raw: string) => /https:\/\/library\.example\.com\/newsletter\/unsubscribe\/\?token=([A-Za-z0-9_.%-]+)/.exec(bodyOf(raw));

describe.each(ENGINES)('the marketing modules on %s', (engine) => {
  let t: TestApp;
  let smtp: SmtpSink;
  let ada: TestClient;
  let bob: TestClient;
  let cyd: TestClient;
  let anon: TestClient;
  let started: Date;

  const modules = async (c: TestClient) => {
    const res = await c.get(marketingPaths.homeModules());
    expect(res.statusCode, res.body).toBe(200);
    return homeModulesSchema.parse(res.json());
  };
  const subscribe = (c: TestClient, body: unknown, opts: { csrf?: boolean } = {}) =>
    c.request('PUT', marketingPaths.newsletterSubscription(), { json: body, ...opts });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(engine, { smtpUrl: smtp.url, publicUrl: 'https://library.example.com' });
    // the job ran at start (ready): the first issue, of an empty library, to nobody
    started = new Date();
    [ada, bob, cyd] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com', 'cyd@example.com']);
    anon = new TestClient(t.lectern.app);
    await importSamples(t.lectern);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('opts in and out: visitors get no newsletter state and a 401, bad bodies a 400 naming the field', async () => {
    expect(await modules(anon)).toEqual({ newsletter: null, dismissed: [] });
    expect((await subscribe(anon, { subscribed: true })).statusCode).toBe(401);
    expect(await modules(ada)).toEqual({ newsletter: { subscribed: false, every_days: 7 }, dismissed: [] });
    const bad = await subscribe(ada, { subscribed: 'yes' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['subscribed']);
    expect((await subscribe(ada, { subscribed: true }, { csrf: false })).statusCode).toBe(403);
    expect((await modules(ada)).newsletter?.subscribed).toBe(false);

    for (const c of [ada, cyd]) expect((await subscribe(c, { subscribed: true })).json()).toEqual({ subscribed: true });
    expect((await subscribe(ada, { subscribed: true })).json()).toEqual({ subscribed: true }); // again: no change
    expect((await subscribe(cyd, { subscribed: false })).json()).toEqual({ subscribed: false });
    expect((await modules(ada)).newsletter?.subscribed).toBe(true);
    expect((await modules(bob)).newsletter?.subscribed).toBe(false);
    expect((await modules(cyd)).newsletter?.subscribed).toBe(false);
  });

  it('the sample lists what the next issue will: the titles added since the last', async () => {
    const sample = newsletterSampleSchema.parse((await anon.get(marketingPaths.newsletterSample())).json());
    expect(sample.total).toBeGreaterThan(1);
    expect(sample.titles.map((x) => x.title)).toContain('The War of the Worlds');
    expect(sample.titles[0]!.url).toMatch(/^\/library\/book\//);
  });

  it('sends once per period, to opted-in readers only, the titles added since the last issue', async () => {
    const { marketing } = t.lectern.services;
    // within the period of the issue made at start: nothing is due
    expect(await marketing.runDue(new Date(started.getTime() + 6 * DAY))).toEqual({ issueId: null, titles: 0, recipients: 0 });
    expect(smtp.messages).toHaveLength(0);

    const due = new Date(started.getTime() + 7 * DAY + 60_000);
    const run = await marketing.runDue(due);
    expect(run.recipients).toBe(1);
    expect(run.titles).toBeGreaterThan(1);
    const mail = await smtp.waitFor(1);
    expect(mail).toHaveLength(1);
    expect(mail[0]!.to).toBe('ada@example.com');
    const body = bodyOf(mail[0]!.raw);
    expect(body).toContain(MARKETING_MESSAGES.mailSubject(run.titles));
    expect(body).toContain('The War of the Worlds');
    expect(body).toMatch(/https:\/\/library\.example\.com\/library\/book\/[^/\s]+\//);
    expect(mail[0]!.raw).toMatch(/^List-Unsubscribe:\s+<https:\/\/library\.example\.com\/newsletter\/unsubscribe\/\?token=/m);
    expect(unsubscribeLink(mail[0]!.raw)).not.toBeNull();

    // the same period again, from this process or another: nothing more is sent
    expect((await marketing.runDue(new Date(due.getTime() + 3_600_000))).issueId).toBeNull();
    // the next period with nothing new: the period is spent, nobody gets an empty mail
    const next = await marketing.runDue(new Date(due.getTime() + 7 * DAY + 60_000));
    expect(next.issueId).not.toBeNull();
    expect(next).toMatchObject({ titles: 0, recipients: 0 });
    await new Promise((r) => setImmediate(r));
    expect(smtp.messages).toHaveLength(1);
    // the job shows on the console's health page like the others
    expect(t.lectern.services.admin.jobs.list().find((j) => j.name === 'newsletter of new titles')?.last_ok).toBe(true);
  });

  it("unsubscribes by the mail's link without signing in; forged, expired and other tokens are refused", async () => {
    const match = unsubscribeLink(smtp.messages[0]!.raw)!;
    const token = decodeURIComponent(match[1]!);
    const visitor = new TestClient(t.lectern.app);
    const state = await visitor.get(`${marketingPaths.newsletterUnsubscribe()}?token=${encodeURIComponent(token)}`);
    expect(state.statusCode, state.body).toBe(200);
    expect(state.json()).toEqual({ email: 'a•••@example.com', subscribed: true });
    // the POST is an unsafe call like any other: no CSRF token, no change
    expect((await visitor.post(marketingPaths.newsletterUnsubscribe(), { token }, { csrf: false })).statusCode).toBe(403);
    expect((await modules(ada)).newsletter?.subscribed).toBe(true);

    const refused = async (bad: string) => {
      const get = await visitor.get(`${marketingPaths.newsletterUnsubscribe()}?token=${encodeURIComponent(bad)}`);
      const post = await visitor.post(marketingPaths.newsletterUnsubscribe(), { token: bad });
      for (const res of [get, post]) {
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().errors).toEqual({ token: [MARKETING_MESSAGES.badToken] });
      }
    };
    const [payload, mac] = token.split('.') as [string, string];
    await refused(`${payload}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`);
    // the payload changed to another reader's id, the mac kept
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [number, number];
    await refused(`${Buffer.from(JSON.stringify([values[0] + 1, values[1]])).toString('base64url')}.${mac}`);
    await refused(t.lectern.services.marketing.unsubscribeToken(values[0], new Date(Date.now() - 366 * DAY)));
    await refused(new SignedTokens(SECRET, 'scripted-frame').seal(values));
    expect((await visitor.post(marketingPaths.newsletterUnsubscribe(), {})).json().errors).toHaveProperty('token');
    expect((await modules(ada)).newsletter?.subscribed).toBe(true);

    const done = await visitor.post(marketingPaths.newsletterUnsubscribe(), { token });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ email: 'a•••@example.com', subscribed: false });
    expect((await modules(ada)).newsletter?.subscribed).toBe(false);
    // one click or two: the same answer
    expect((await visitor.post(marketingPaths.newsletterUnsubscribe(), { token })).json()).toEqual({ email: 'a•••@example.com', subscribed: false });
  });

  it('remembers dismissed home blocks per account', async () => {
    expect((await bob.post(marketingPaths.homeDismissals(), { module: 'tutorial' })).statusCode).toBe(204);
    expect((await bob.post(marketingPaths.homeDismissals(), { module: 'tutorial' })).statusCode).toBe(204);
    const bad = await bob.post(marketingPaths.homeDismissals(), { module: 'everything' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors)).toEqual(['module']);
    expect((await anon.post(marketingPaths.homeDismissals(), { module: 'tutorial' })).statusCode).toBe(401);
    expect((await modules(bob)).dismissed).toEqual(['tutorial']);
    expect((await modules(cyd)).dismissed).toEqual([]);
  });

  it("publishes an editor's playlist under a topic, shown to everyone with its topic; readers may not publish", async () => {
    await t.lectern.services.accounts.createUser({ email: 'editor@example.com', password: 'a long enough password', role: 'admin' });
    const editor = new TestClient(t.lectern.app);
    await editor.login('editor@example.com', 'a long enough password');
    const books = pagedSchema(contentMetadataSchema).parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    const topic = books.flatMap((b) => b.topics)[0]!;
    const collections = '/nest/api/api/v2/collections/';
    const made = (await editor.post(collections, { name: 'From zero to reading', description: 'Three books, in order.' })).json<{ id: string }>();
    expect((await editor.post(`${collections}${made.id}/add-content/`, { content: books.slice(0, 3).map((b) => b.api_url) })).statusCode).toBe(200);
    const theirs = (await bob.post(collections, { name: 'Mine', description: '' })).json<{ id: string }>();
    const list = async (query = '') => transformationPlaylistListSchema.parse((await anon.get(`${marketingPaths.transformationPlaylists()}${query}`)).json()).results;
    expect(await list()).toEqual([]);

    const publish = (c: TestClient, id: string, body: unknown) => c.request('PUT', marketingPaths.transformationPlaylist(id), { json: body });
    expect((await publish(anon, made.id, { topic: topic.slug })).statusCode).toBe(401);
    expect((await publish(bob, theirs.id, { topic: topic.slug })).statusCode).toBe(403);
    expect((await publish(editor, theirs.id, { topic: topic.slug })).statusCode).toBe(404);
    const unknown = await publish(editor, made.id, { topic: 'no-such-topic' });
    expect(unknown.statusCode).toBe(400);
    expect(Object.keys(unknown.json().errors)).toEqual(['topic']);
    expect(Object.keys((await publish(editor, made.id, {})).json().errors)).toEqual(['topic']);
    const queue = ((await editor.get(collections)).json<{ id: string; is_default: boolean }[]>()).find((c) => c.is_default)!;
    expect(Object.keys((await publish(editor, queue.id, { topic: topic.slug })).json().errors)).toEqual(['collection']);
    expect(await list()).toEqual([]);

    // the console's list of the editor's own playlists (not the queue), each with its topic: none yet
    const ownList = async (c: TestClient) => c.get(marketingPaths.transformationOwn());
    expect((await ownList(anon)).statusCode).toBe(401);
    expect((await ownList(bob)).statusCode).toBe(403);
    expect(transformationOwnListSchema.parse((await ownList(editor)).json()).results).toEqual([{ id: made.id, name: 'From zero to reading', count: 3, topic: null }]);

    expect((await publish(editor, made.id, { topic: topic.slug })).statusCode).toBe(204);
    expect(transformationOwnListSchema.parse((await ownList(editor)).json()).results[0]!.topic).toEqual({ slug: topic.slug, name: topic.name });
    const shown = await list();
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ id: made.id, name: 'From zero to reading', description: 'Three books, in order.', topic: { slug: topic.slug, name: topic.name }, count: 3 });
    // in the playlist's own order, as its page shows it
    const own = (await editor.get(`${collections}${made.id}/`)).json<{ content: { api_url: string }[] }>();
    expect(shown[0]!.titles.map((b) => b.api_url)).toEqual(own.content.map((c) => c.api_url));
    expect((await list(`?topic=${topic.slug}`)).map((p) => p.id)).toEqual([made.id]);
    expect(await list('?topic=no-such-topic')).toEqual([]);

    expect((await editor.request('DELETE', marketingPaths.transformationPlaylist(made.id))).statusCode).toBe(204);
    expect((await editor.request('DELETE', marketingPaths.transformationPlaylist(made.id))).statusCode).toBe(404);
    expect(await list()).toEqual([]);
    expect(transformationOwnListSchema.parse((await ownList(editor)).json()).results[0]!.topic).toBeNull();
    // written to the audit log in the console's words: one publish (the refused ones change nothing), one unpublish
    const audit = auditPageSchema.parse((await editor.get(`${adminPaths.audit()}?target_kind=transformation-playlist`)).json()).results;
    expect(audit.map((e) => [e.action, e.target_id, e.actor_label])).toEqual([
      ['transformation-playlist.unpublish', made.id, 'editor@example.com'],
      ['transformation-playlist.publish', made.id, 'editor@example.com'],
    ]);
  });

  it('gives a title no buy link while BUY_LINK_TEMPLATE is unset', async () => {
    const page = pagedSchema(contentMetadataSchema).parse((await anon.get('/api/v1/book/?page_size=5')).json());
    const detail = bookDetailSchema.parse((await anon.get(page.results[0]!.api_url)).json());
    expect(detail.buy_url).toBeUndefined();
  });
});

describe('buy links from BUY_LINK_TEMPLATE (sqlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { buyLinkTemplate: 'https://shop.example/find?t={title}&id={book_id}' });
    await importSamples(t.lectern);
  }, 180_000);
  afterAll(async () => t?.close());

  it("fills the operator's template for each title", async () => {
    const anon = new TestClient(t.lectern.app);
    const page = pagedSchema(contentMetadataSchema).parse((await anon.get('/api/v1/book/?page_size=100')).json());
    const wotw = page.results.find((b) => b.title === 'The War of the Worlds')!;
    const detail = bookDetailSchema.parse((await anon.get(wotw.api_url)).json());
    expect(detail.buy_url).toBe(`https://shop.example/find?t=The%20War%20of%20the%20Worlds&id=${encodeURIComponent(wotw.book_id)}`);
  });
});
