/**
 * The operators' console, selling (docs/decisions.md "The console's selling"; core/admin-selling.ts) on both engines:
 * invoices listed by state and account, one marked paid from the list; teams searched, shown with their members, their
 * seats changed (never below the seats in use), their owner changed and a member removed; a promotion code's limit and
 * end changed (never below its redemptions) and its redemptions listed. Each route refused to anonymous (401), readers
 * and content creators (403) and without CSRF, its bad input named with nothing changed, and each change written to the
 * audit log. A team is bought, and joined through its mailed invitations, by the teams' own service.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  MESSAGES,
  adminInvoicePageSchema,
  adminPaths,
  adminPromotionCodeSchema,
  adminRedemptionPageSchema,
  adminTeamDetailSchema,
  adminTeamPageSchema,
  auditPageSchema,
  TEAM_MESSAGES,
} from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/db/schema.ts';
import { SubscriptionsRepository } from '../../src/repositories/subscriptions.ts';
import { TeamsRepository } from '../../src/repositories/teams.ts';
import { LogMailer } from '../../src/services/mailer.ts';
import { InvoiceProvider } from '../../src/services/payments.ts';
import { TeamsService } from '../../src/services/teams.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';

const PASSWORD = 'a long enough password';

describe.each(ENGINES)('the console’s selling API on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let creator: TestClient;
  let reader: TestClient;
  let anon: TestClient;
  let teamId: string;
  const uuid: Record<string, string> = {};

  const userRow = (email: string) => t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow() as Promise<UserRow>;
  const audit = async (query: string) => auditPageSchema.parse((await admin.get(`${adminPaths.audit()}?${query}`)).json()).results;
  const invoices = async (query: string) => {
    const res = await admin.get(`${adminPaths.invoices()}?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return adminInvoicePageSchema.parse(res.json());
  };
  const team = async () => adminTeamDetailSchema.parse((await admin.get(adminPaths.team(teamId))).json());
  const put = (c: TestClient, url: string, json: unknown) => c.request('PUT', url, { json });

  beforeAll(async () => {
    t = await startTestApp(engine);
    const { accounts, subscriptions } = t.lectern.services;
    await accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    await accounts.createUser({ email: 'maker@example.com', password: PASSWORD, role: 'content-creator' });
    await accounts.createUser({ email: 'ada@example.com', password: PASSWORD, status: 'subscriber' });
    for (const email of ['owner@example.com', 'mia@example.com', 'ned@example.com', 'uma@example.com', 'vic@example.com', 'wes@example.com']) {
      await accounts.createUser({ email, password: PASSWORD, status: 'expired' });
      uuid[email] = (await userRow(email)).uuid;
    }
    [admin, creator, reader, anon] = [0, 1, 2, 3].map(() => new TestClient(t.lectern.app)) as [TestClient, TestClient, TestClient, TestClient];
    await admin.login('root@example.com', PASSWORD);
    await creator.login('maker@example.com', PASSWORD);
    await reader.login('ada@example.com', PASSWORD);

    // a team of 3 seats bought by its owner (an open invoice), its two invitations accepted through the mailed links
    const mails: string[] = [];
    const teams = new TeamsService(
      new TeamsRepository(t.lectern.db.kysely),
      new SubscriptionsRepository(t.lectern.db.kysely),
      new InvoiceProvider(),
      accounts,
      new LogMailer((line) => mails.push(line)),
      'https://library.example.com',
    );
    const made = await teams.create(await userRow('owner@example.com'), { name: 'Harbour Crew', plan: 'basic', seats: 3, emails: ['mia@example.com', 'ned@example.com'] });
    teamId = String(made.id);
    for (const email of ['mia@example.com', 'ned@example.com']) {
      const token = new RegExp(`email to ${email}[\\s\\S]*?token=([A-Za-z0-9_-]+)`).exec(mails.join('\n'))![1]!;
      await teams.accept(await userRow(email), { token });
    }
    // a promotion code redeemed twice
    expect((await admin.post(adminPaths.promotionCodes(), { code: 'spring', kind: 'percent', amount: 50, usage_limit: 5 })).statusCode).toBe(201);
    for (const email of ['uma@example.com', 'vic@example.com']) await subscriptions.subscribe(await userRow(email), 'basic', 'spring');
  });
  afterAll(() => t.close());

  it('refuses every selling route to whom it is not for, and an unsafe call without CSRF, changing nothing', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', adminPaths.invoices()],
      ['GET', adminPaths.teams()],
      ['GET', adminPaths.team(teamId)],
      ['PUT', adminPaths.teamSeats(teamId), { seats: 9 }],
      ['PUT', adminPaths.teamOwner(teamId), { user_id: uuid['mia@example.com'] }],
      ['DELETE', adminPaths.teamMember(teamId, uuid['ned@example.com']!)],
      ['PATCH', adminPaths.promotionCode('spring'), { usage_limit: 9 }],
      ['GET', adminPaths.promotionCodeRedemptions('spring')],
    ];
    for (const [method, url, json] of routes) {
      expect((await anon.request(method as 'GET', url, { json })).statusCode, `${method} ${url} anonymous`).toBe(401);
      expect((await reader.request(method as 'GET', url, { json })).statusCode, `${method} ${url} reader`).toBe(403);
      expect((await creator.request(method as 'GET', url, { json })).statusCode, `${method} ${url} content creator`).toBe(403);
    }
    for (const [method, url, json] of routes.filter(([m]) => m !== 'GET')) {
      expect((await admin.request(method as 'PUT', url, { json, csrf: false })).statusCode, `${method} ${url} without CSRF`).toBe(403);
    }
    const now = await team();
    expect(now).toMatchObject({ seats: 3, seats_used: 3, members: 3, owner: { email: 'owner@example.com' } });
    expect((await t.lectern.services.subscriptions.listPromotionCodes()).find((c) => c.code === 'spring')?.usage_limit).toBe(5);
    expect(await audit('target_kind=team')).toEqual([]);
  });

  it('lists invoices by state and account, newest first, paged; one marked paid leaves the unpaid list', async () => {
    const all = await invoices('state=all');
    expect(all.results.map((i) => i.account.email)).toEqual(['vic@example.com', 'uma@example.com', 'owner@example.com']);
    expect(all.results[2]).toMatchObject({ status: 'open', amount_cents: 2400 * 3, seats: 3, team: { team_id: teamId, name: 'Harbour Crew' } });
    expect(all.results[0]).toMatchObject({ promotion_code: 'spring', amount_cents: 1200, team: null, account: { user_id: uuid['vic@example.com'] } });
    const first = await invoices('state=unpaid&limit=2');
    expect(first.results).toHaveLength(2);
    const second = await invoices(`state=unpaid&limit=2&cursor=${first.next_cursor}`);
    expect(second.results.map((i) => i.account.email)).toEqual(['owner@example.com']);
    expect(second.next_cursor).toBeNull();
    expect((await invoices('q=OWNER@')).results.map((i) => i.id)).toEqual([all.results[2]!.id]);

    const bad = await admin.get(`${adminPaths.invoices()}?state=late`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.state).toEqual([M.unknownInvoiceState]);
    expect((await admin.get(`${adminPaths.invoices()}?cursor=nonsense`)).json().errors).toHaveProperty('cursor');

    const id = String(all.results[2]!.id);
    expect((await admin.post(adminPaths.invoicePaid(id), {})).statusCode).toBe(200);
    expect((await invoices('state=unpaid')).results.map((i) => i.id)).not.toContain(Number(id));
    expect((await invoices('state=paid')).results).toEqual([expect.objectContaining({ id: Number(id), status: 'paid', paid_at: expect.any(String) })]);
    expect(await audit('action=invoice.paid')).toEqual([expect.objectContaining({ target_id: id, actor_label: 'root@example.com' })]);
  });

  it('searches teams by name and owner, and shows one with its members, the owner first', async () => {
    const byName = adminTeamPageSchema.parse((await admin.get(`${adminPaths.teams()}?q=harbour`)).json());
    expect(byName.results).toEqual([expect.objectContaining({ team_id: teamId, name: 'Harbour Crew', seats: 3, seats_used: 3, members: 3, plan: 'basic', status: 'active' })]);
    const byOwner = adminTeamPageSchema.parse((await admin.get(`${adminPaths.teams()}?q=owner@example`)).json());
    expect(byOwner.results.map((r) => r.team_id)).toEqual([teamId]);
    expect(adminTeamPageSchema.parse((await admin.get(`${adminPaths.teams()}?q=nobody`)).json()).results).toEqual([]);
    const detail = await team();
    expect(detail.live).toBe(true);
    expect(detail.member_list.map((m) => [m.email, m.is_owner])).toEqual([
      ['owner@example.com', true],
      ['mia@example.com', false],
      ['ned@example.com', false],
    ]);
    expect(detail.member_list.every((m) => m.joined_at)).toBe(true);
    expect((await admin.get(adminPaths.team('999999'))).statusCode).toBe(404);
    expect((await admin.get(adminPaths.team('abc'))).statusCode).toBe(404);
  });

  it('changes the seats, never below the members, naming seats; added seats are invoiced to the owner', async () => {
    const below = await put(admin, adminPaths.teamSeats(teamId), { seats: 2 });
    expect(below.statusCode).toBe(400);
    expect(below.json().errors.seats).toEqual([TEAM_MESSAGES.seatsBelowUsed(3)]);
    const nonsense = await put(admin, adminPaths.teamSeats(teamId), { seats: 'many' });
    expect(nonsense.statusCode).toBe(400);
    expect(nonsense.json().errors).toHaveProperty('seats');
    expect((await team()).seats).toBe(3);
    const before = (await invoices('state=all')).results.length;

    const more = await put(admin, adminPaths.teamSeats(teamId), { seats: 5 });
    expect(more.statusCode, more.body).toBe(200);
    expect(adminTeamDetailSchema.parse(more.json())).toMatchObject({ seats: 5, seats_used: 3 });
    const [newest] = (await invoices('state=unpaid')).results;
    expect(newest).toMatchObject({ seats: 2, status: 'open', account: { email: 'owner@example.com' }, team: { team_id: teamId } });
    expect((await invoices('state=all')).results).toHaveLength(before + 1);
    expect(await audit('action=team.seats')).toEqual([expect.objectContaining({ target_kind: 'team', target_id: teamId, detail: { name: 'Harbour Crew', changed: { seats: [3, 5] } } })]);
  });

  it('makes a member the owner, refusing an account not in the team by name', async () => {
    const outsider = await put(admin, adminPaths.teamOwner(teamId), { user_id: uuid['wes@example.com'] });
    expect(outsider.statusCode).toBe(400);
    expect(outsider.json().errors.user_id).toEqual([M.notAMember]);
    const empty = await put(admin, adminPaths.teamOwner(teamId), {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toHaveProperty('user_id');
    expect((await team()).owner?.email).toBe('owner@example.com');

    const res = await put(admin, adminPaths.teamOwner(teamId), { user_id: uuid['mia@example.com'] });
    expect(res.statusCode, res.body).toBe(200);
    const after = adminTeamDetailSchema.parse(res.json());
    expect(after.owner?.email).toBe('mia@example.com');
    expect(after.member_list.map((m) => [m.email, m.is_owner])).toContainEqual(['owner@example.com', false]);
    expect(await audit('action=team.owner')).toEqual([expect.objectContaining({ detail: { name: 'Harbour Crew', changed: { owner: ['owner@example.com', 'mia@example.com'] } } })]);
    // the new owner manages it as owners do
    const mia = new TestClient(t.lectern.app);
    await mia.login('mia@example.com', PASSWORD);
    expect((await mia.get(`/api/v1/teams/${teamId}/`)).json()).toMatchObject({ role: 'owner' });
  });

  it('removes a member (their seat back), never the owner', async () => {
    const owner = await admin.request('DELETE', adminPaths.teamMember(teamId, uuid['mia@example.com']!));
    expect(owner.statusCode).toBe(400);
    expect(owner.json().errors.user_id).toEqual([TEAM_MESSAGES.ownerStays]);
    expect((await admin.request('DELETE', adminPaths.teamMember(teamId, 'no-such-account'))).statusCode).toBe(404);
    const res = await admin.request('DELETE', adminPaths.teamMember(teamId, uuid['ned@example.com']!));
    expect(res.statusCode, res.body).toBe(200);
    expect(adminTeamDetailSchema.parse(res.json())).toMatchObject({ members: 2, seats_used: 2 });
    expect((await userRow('ned@example.com')).team_id).toBeNull();
    expect(await audit('action=team.remove-member')).toEqual([expect.objectContaining({ target_id: teamId, detail: { name: 'Harbour Crew', member: 'ned@example.com' } })]);
  });

  it("changes a code's limit (never below its redemptions) and end, and lists who redeemed it", async () => {
    const patch = (json: unknown) => admin.request('PATCH', adminPaths.promotionCode('spring'), { json });
    const below = await patch({ usage_limit: 1 });
    expect(below.statusCode).toBe(400);
    expect(below.json().errors.usage_limit).toEqual([M.limitBelowUsed(2)]);
    expect((await patch({ usage_limit: 0 })).json().errors).toHaveProperty('usage_limit');
    expect((await patch({})).json().errors).toHaveProperty('usage_limit');
    expect((await patch({ expires_at: 'soon' })).json().errors).toHaveProperty('expires_at');
    expect((await admin.request('PATCH', adminPaths.promotionCode('nope'), { json: { usage_limit: 3 } })).statusCode).toBe(404);

    const limited = await patch({ usage_limit: 2 });
    expect(limited.statusCode, limited.body).toBe(200);
    expect(adminPromotionCodeSchema.parse(limited.json())).toMatchObject({ usage_limit: 2, used_count: 2 });
    const redeem = async () => (await reader.get('/api/v2/account/promotion/?code=spring&plan=basic')).json().message as string;
    expect(await redeem()).toMatch(/used as many times/);
    const ended = await patch({ usage_limit: null, expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(ended.statusCode).toBe(200);
    expect(await redeem()).toMatch(/expired/);
    const entries = await audit('action=promotion-code.edit');
    expect(entries.map((e) => Object.keys((e.detail.changed as object) ?? {}))).toEqual([['usage_limit', 'expires_at'], ['usage_limit']]);

    // an empty code is named as missing, once (not a validator's wording followed by the pattern's)
    const empty = await admin.request('POST', adminPaths.promotionCodes(), { json: { code: '  ', kind: 'percent', amount: 10 } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors.code).toEqual([MESSAGES.fieldRequired]);
    // the entry names the code as stored (trimmed, lower case), so the audit filter by target finds it
    const made = await admin.request('POST', adminPaths.promotionCodes(), { json: { code: ' Autumn ', kind: 'percent', amount: 10 } });
    expect(made.statusCode, made.body).toBe(201);
    expect(await audit('action=promotion-code.create&target_id=autumn')).toEqual([expect.objectContaining({ target_kind: 'promotion-code', target_id: 'autumn' })]);

    const first = adminRedemptionPageSchema.parse((await admin.get(`${adminPaths.promotionCodeRedemptions('spring')}?limit=1`)).json());
    expect(first.results).toEqual([expect.objectContaining({ account: { user_id: uuid['vic@example.com'], email: 'vic@example.com' }, plan: 'basic', amount_cents: 1200 })]);
    const second = adminRedemptionPageSchema.parse((await admin.get(`${adminPaths.promotionCodeRedemptions('SPRING')}?limit=1&cursor=${first.next_cursor}`)).json());
    expect(second.results.map((r) => r.account.email)).toEqual(['uma@example.com']);
    expect(second.next_cursor).toBeNull();
  });
});
