/**
 * Teams (docs/decisions.md "Teams") on both engines, with a real SMTP server catching the invitations: buying seats (an
 * invoice the operator marks paid), inviting within the seats and refused beyond them, more seats raising an invoice,
 * accepting (a visitor signs up; a signed-in reader joins), revoking, removing and leaving, an expired link, reading
 * rights following the team (and lost when the team lapses, kept data and all), the account history of each change, who
 * may see and manage a team (404 for another team's member), the invitation limit, and clicks that race: two accepts of
 * one link, two invitations of one address, two removals of one member.
 */
import { ACCOUNT_ENTRY_MESSAGES, READING_MESSAGES, TEAM_MESSAGES, teamPaths, teamSchema, TEAM_EXTRA_INVITES_PER_DAY, TEAM_INVITATION_TTL_MS } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/db/schema.ts';
import { SubscriptionsRepository } from '../../src/repositories/subscriptions.ts';
import { TeamsRepository } from '../../src/repositories/teams.ts';
import { LogMailer } from '../../src/services/mailer.ts';
import { InvoiceProvider } from '../../src/services/payments.ts';
import { TeamsService } from '../../src/services/teams.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { TestClient } from '../helpers/client.ts';
import { bodyOf, startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { twoChapterBook } from '../ingest/helpers.ts';

const PASSWORD = 'a reading lamp by the window';
const DAY = 86_400_000;
const PUBLIC_URL = 'https://library.example.com';

describe.each(ENGINES)('teams on %s', (engine) => {
  let t: TestApp;
  let smtp: SmtpSink;
  let admin: TestClient;
  let lockedChapterUrl: string;
  let n = 0;

  const account = async (status: UserRow['status'] = 'expired', prefix = 'reader') => {
    n += 1;
    const email = `${prefix}${n}@example.com`;
    await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status });
    const client = new TestClient(t.lectern.app);
    await client.login(email, PASSWORD);
    const user = (await t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow());
    return { client, user, email };
  };
  const userByEmail = (email: string) => t.lectern.db.kysely.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow() as Promise<UserRow>;
  const history = async (email: string) => (await t.lectern.services.registration.history(await userByEmail(email))).map((h) => h.event);
  const teamRow = (id: number) => t.lectern.db.kysely.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  /** The token in the newest invitation mailed to `to`. */
  const tokenFor = async (to: string) => {
    const mail = await smtp.waitForMessage((m) => m.to === to);
    if (!mail) throw new Error(`no invitation for ${to}`);
    const link = new RegExp(`${PUBLIC_URL.replace(/\./g, '\\.')}/teams/join/\\?token=([A-Za-z0-9_-]+)`).exec(bodyOf(mail.raw));
    expect(link, 'the mail carries a link built from PUBLIC_URL').not.toBeNull();
    return link![1]!;
  };
  /** The same rules with a clock the test moves: what the every-minute job (and a late click) does then. */
  const at = (when: Date) =>
    new TeamsService(
      new TeamsRepository(t.lectern.db.kysely),
      new SubscriptionsRepository(t.lectern.db.kysely),
      new InvoiceProvider(),
      t.lectern.services.accounts,
      new LogMailer(() => {}),
      PUBLIC_URL,
      () => when,
      (ids) => ids.forEach((id) => t.lectern.services.auth.forgetUser(id)),
    );
  /** A new owner with a team of `seats` seats, inviting `emails`. */
  const teamOf = async (seats: number, emails: string[] = [], plan: 'basic' | 'pro' = 'basic') => {
    const owner = await account('expired', 'owner');
    const res = await owner.client.post(teamPaths.create(), { name: `Team of ${owner.email}`, plan, seats, emails });
    expect(res.statusCode, res.body).toBe(201);
    return { owner, team: teamSchema.parse(res.json()) };
  };
  const reads = async (client: TestClient) => (await client.get(lockedChapterUrl)).statusCode;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(engine, { smtpUrl: smtp.url, publicUrl: PUBLIC_URL });
    const book = await t.lectern.services.importer.importBytes(twoChapterBook(), 'two.epub');
    await t.lectern.services.flags.set(book.book_id, 'b.xhtml', { as_sample: false, is_public: false });
    lockedChapterUrl = `/api/v1/book/${book.book_id}/chapter/b.xhtml`;
    await t.lectern.services.accounts.createUser({ email: 'admin@example.com', password: PASSWORD, status: 'subscriber', role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('admin@example.com', PASSWORD);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('buys seats: the owner takes one, each invitation another; an open invoice the operator marks paid; mail with a one-time link', async () => {
    const invited = `first-member-${engine}@example.com`;
    const { owner, team } = await teamOf(3, [invited], 'pro');
    expect(team).toMatchObject({ role: 'owner', plan: 'pro', status: 'active', live: true, seats: 3, seats_used: 2, owner: { email: owner.email } });
    expect(team.members.map((m) => [m.email, m.is_owner])).toEqual([[owner.email, true]]);
    expect(team.invitations.map((i) => i.email)).toEqual([invited]);
    expect(Date.parse(team.invitations[0]!.expires_at) - Date.parse(team.invitations[0]!.created_at)).toBe(TEAM_INVITATION_TTL_MS);
    // the owner's own account reads through the team
    expect(await reads(owner.client)).toBe(200);
    // the invoice: the plan's price per seat, for the team's seats, open until the operator marks it paid
    const sub = (await owner.client.get('/api/v2/account/subscription/')).json();
    expect(sub.invoices).toHaveLength(1);
    expect(sub.invoices[0]).toMatchObject({ plan: 'pro', amount_cents: 3900 * 3, seats: 3, status: 'open' });
    expect((await admin.post(`/api/v2/admin/invoices/${sub.invoices[0].id}/paid/`)).json().status).toBe('paid');
    expect(await history(owner.email)).toEqual(['team_created', 'team_invited']);
    const token = await tokenFor(invited);
    const mail = bodyOf(smtp.messages.find((m) => m.to === invited)!.raw);
    expect(mail).toContain(TEAM_MESSAGES.invitationEmailSubject(team.name).slice(0, 20));
    // what the link offers, to whoever holds it
    const info = await new TestClient(t.lectern.app).get(`${teamPaths.invitationByToken()}?token=${token}`);
    expect(info.json()).toMatchObject({ team_name: team.name, owner_email: owner.email, email: invited, account_exists: false });
    // GET /api/v1/team/ is the caller's team
    expect((await owner.client.get(teamPaths.mine())).json().team.id).toBe(team.id);
    expect((await admin.get(teamPaths.mine())).json()).toEqual({ team: null });
  });

  it('refuses bad input with the field named, and a second team for one owner', async () => {
    const owner = await account();
    const bad = await owner.client.post(teamPaths.create(), { name: '', plan: 'gold', seats: 0, emails: ['not an address'] });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['emails.0', 'name', 'plan', 'seats']);
    const tooMany = await owner.client.post(teamPaths.create(), { name: 'Crowd', plan: 'basic', seats: 2, emails: ['a@example.com', 'b@example.com'] });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors.emails).toEqual([TEAM_MESSAGES.notEnoughSeats(1)]);
    expect((await owner.client.post(teamPaths.create(), { name: 'First', plan: 'basic', seats: 1 })).statusCode).toBe(201);
    const second = await owner.client.post(teamPaths.create(), { name: 'Second', plan: 'basic', seats: 1 });
    expect(second.statusCode).toBe(400);
    expect(second.json().detail).toBe(TEAM_MESSAGES.alreadyInTeam);
    // anonymous: 401
    expect((await new TestClient(t.lectern.app).post(teamPaths.create(), { name: 'x', plan: 'basic', seats: 1 })).statusCode).toBe(401);
  });

  it('refuses invitations beyond the seats with a clear message; more seats raise an invoice for the rest of the period', async () => {
    const { owner, team } = await teamOf(2, [`seat-a-${engine}@example.com`]);
    const full = await owner.client.post(teamPaths.invitations(team.id), { emails: [`seat-b-${engine}@example.com`] });
    expect(full.statusCode).toBe(400);
    expect(full.json().errors.emails).toEqual([TEAM_MESSAGES.notEnoughSeats(0)]);
    // fewer seats than in use: refused
    const below = await owner.client.request('PUT', teamPaths.seats(team.id), { json: { seats: 1 } });
    expect(below.statusCode).toBe(400);
    expect(below.json().errors.seats).toEqual([TEAM_MESSAGES.seatsBelowUsed(2)]);
    const more = await owner.client.request('PUT', teamPaths.seats(team.id), { json: { seats: 4 } });
    expect(more.statusCode).toBe(200);
    expect(more.json()).toMatchObject({ seats: 4, seats_used: 2 });
    const invoices = (await owner.client.get('/api/v2/account/subscription/')).json().invoices;
    expect(invoices).toHaveLength(2);
    // two more seats for (nearly) a whole month
    expect(invoices[0]).toMatchObject({ seats: 2, status: 'open' });
    expect(invoices[0].amount_cents).toBeGreaterThan(2 * 2400 - 10);
    expect(invoices[0].amount_cents).toBeLessThanOrEqual(2 * 2400);
    const ok = await owner.client.post(teamPaths.invitations(team.id), { emails: [`seat-b-${engine}@example.com`, `seat-c-${engine}@example.com`] });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toMatchObject({ seats: 4, seats_used: 4 });
    const again = await owner.client.post(teamPaths.invitations(team.id), { emails: [`seat-a-${engine}@example.com`] });
    expect(again.json().errors.emails).toEqual([TEAM_MESSAGES.alreadyInvited(`seat-a-${engine}@example.com`)]);
    expect(await history(owner.email)).toEqual(['team_created', 'team_invited', 'team_seats_changed', 'team_invited']);
  });

  it('a visitor accepts by signing up: the member reads like a subscriber; the link works once', async () => {
    const invited = `visitor-${engine}@example.com`;
    const { owner, team } = await teamOf(3, [invited]);
    const token = await tokenFor(invited);
    const visitor = new TestClient(t.lectern.app);
    const weak = await visitor.post(teamPaths.invitationByToken(), { token, password: 'password' });
    expect(weak.statusCode).toBe(400);
    expect(Object.keys(weak.json().errors)).toEqual(['password']);
    const missing = await visitor.post(teamPaths.invitationByToken(), { token });
    expect(missing.json().errors.password).toEqual([ACCOUNT_ENTRY_MESSAGES.required]);
    const joined = await visitor.post(teamPaths.invitationByToken(), { token, password: 'a member of the reading circle' });
    expect(joined.statusCode, joined.body).toBe(201);
    expect(joined.json().team).toMatchObject({ id: team.id, role: 'member', owner: { email: owner.email }, members: [], invitations: [] });
    // signed in by it, reading the locked chapter through the team
    expect(await reads(visitor)).toBe(200);
    const profile = (await visitor.get('/u/information_for_javascript')).json();
    expect(profile).toMatchObject({ subscription_status: 'subscriber', account: { email: invited, team: team.name } });
    expect(await history(invited)).toEqual(['registered', 'team_joined']);
    const view = (await owner.client.get(teamPaths.team(team.id))).json();
    expect(view.members.map((m: { email: string }) => m.email)).toEqual([owner.email, invited]);
    expect(view.invitations).toEqual([]);
    expect(view.seats_used).toBe(2);
    // used: dead for anyone now
    const reuse = await new TestClient(t.lectern.app).post(teamPaths.invitationByToken(), { token, password: 'another long sentence here' });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().detail).toBe(TEAM_MESSAGES.invitationDead);
    expect((await new TestClient(t.lectern.app).get(`${teamPaths.invitationByToken()}?token=${token}`)).statusCode).toBe(400);
  });

  it('a signed-in account accepts and reads; removed, it is stopped at the lock but keeps its playlists and history', async () => {
    const member = await account('expired');
    const { owner, team } = await teamOf(2, [member.email]);
    expect(await reads(member.client)).toBe(403);
    const token = await tokenFor(member.email);
    const info = await member.client.get(`${teamPaths.invitationByToken()}?token=${token}`);
    expect(info.json().account_exists).toBe(true);
    // a visitor may not sign up with an address an account uses
    const visitor = await new TestClient(t.lectern.app).post(teamPaths.invitationByToken(), { token, password: 'a member of the reading circle' });
    expect(visitor.json().errors.email).toEqual([TEAM_MESSAGES.invitationAccountExists]);
    const joined = await member.client.post(teamPaths.invitationByToken(), { token });
    expect(joined.statusCode).toBe(200);
    expect(await reads(member.client)).toBe(200);
    const playlist = await member.client.request('POST', '/api/v2/collections/', { json: { name: 'Team reading', description: '' }, headers: { accept: 'application/json; version=v2' } });
    expect(playlist.statusCode).toBe(201);
    // the member sees the team and its owner, not the other members
    const seen = (await member.client.get(teamPaths.team(team.id))).json();
    expect(seen).toMatchObject({ role: 'member', owner: { email: owner.email }, members: [], invitations: [] });
    // and may not manage it
    expect((await member.client.post(teamPaths.invitations(team.id), { emails: ['x@example.com'] })).statusCode).toBe(403);
    const removed = await owner.client.request('DELETE', teamPaths.member(team.id, member.user.uuid));
    expect(removed.statusCode).toBe(200);
    expect(removed.json().team).toMatchObject({ seats_used: 1, members: [{ email: owner.email }] });
    const refused = await member.client.get(lockedChapterUrl);
    expect(refused.statusCode).toBe(403);
    // told they are off the team and how to subscribe themselves, not that "your subscription has ended"
    // (docs/decisions.md "The paying reader's path")
    const offTeam = `You are no longer a member of the team ${team.name}, so its subscription no longer covers your reading. Subscribe yourself on your account page to read this book.`;
    expect(refused.json().detail).toBe(offTeam);
    expect(READING_MESSAGES.noLongerOnTeam(team.name)).toBe(offTeam);
    // the same words in the reader's own request for chapters
    const [, bookId, href] = /\/api\/v1\/book\/([^/]+)\/chapter\/(.+)$/.exec(lockedChapterUrl)!;
    const block = await member.client.post('/nest/epub/block/', { book_id: bookId, hrefs: decodeURIComponent(href!) });
    expect(block.statusCode).toBe(200);
    expect(block.json()[0]).toMatchObject({ error: offTeam, resources: [] });
    const lists = await member.client.request('GET', '/api/v2/collections/', { headers: { accept: 'application/json; version=v2' } });
    expect(JSON.stringify(lists.json())).toContain('Team reading');
    expect(await history(member.email)).toEqual(['team_joined', 'team_removed']);
    expect(await history(owner.email)).toEqual(['team_created', 'team_invited', 'team_member_joined', 'team_member_removed']);
    // the removed member no longer sees the team
    expect((await member.client.get(teamPaths.team(team.id))).statusCode).toBe(404);
    expect((await member.client.get(teamPaths.mine())).json()).toEqual({ team: null });
    // the owner cannot be removed
    expect((await owner.client.request('DELETE', teamPaths.member(team.id, owner.user.uuid))).json().detail).toBe(TEAM_MESSAGES.ownerStays);
  });

  it('revokes an invitation (its seat comes back; the link is dead); a member may leave', async () => {
    const invited = `revoked-${engine}@example.com`;
    const leaver = await account('expired');
    const { owner, team } = await teamOf(3, [invited, leaver.email]);
    const token = await tokenFor(invited);
    const invitation = team.invitations.find((i) => i.email === invited)!;
    const [a, b] = await Promise.all([
      owner.client.request('DELETE', teamPaths.invitation(team.id, invitation.id)),
      owner.client.request('DELETE', teamPaths.invitation(team.id, invitation.id)),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect((await teamRow(team.id)).seats_used).toBe(2);
    expect(await history(owner.email)).toEqual(['team_created', 'team_invited', 'team_invitation_revoked']);
    const dead = await new TestClient(t.lectern.app).post(teamPaths.invitationByToken(), { token, password: 'a member of the reading circle' });
    expect(dead.json().detail).toBe(TEAM_MESSAGES.invitationDead);
    expect((await owner.client.request('DELETE', teamPaths.invitation(team.id, 999_999))).statusCode).toBe(404);
    // leaving
    await leaver.client.post(teamPaths.invitationByToken(), { token: await tokenFor(leaver.email) });
    expect(await reads(leaver.client)).toBe(200);
    const left = await leaver.client.request('DELETE', teamPaths.member(team.id, leaver.user.uuid));
    expect(left.json()).toEqual({ team: null });
    expect(await reads(leaver.client)).toBe(403);
    expect(await history(leaver.email)).toEqual(['team_joined', 'team_left']);
  });

  it('an expired invitation cannot be accepted, and the due job gives its seat back', async () => {
    const invited = `late-${engine}@example.com`;
    const { team } = await teamOf(2, [invited]);
    const token = await tokenFor(invited);
    const later = at(new Date(Date.now() + TEAM_INVITATION_TTL_MS + 60_000));
    await expect(later.accept(null, { token, password: 'a member of the reading circle' })).rejects.toMatchObject({ status: 400, detail: TEAM_MESSAGES.invitationDead });
    await expect(later.invitationInfo(token)).rejects.toMatchObject({ detail: TEAM_MESSAGES.invitationDead });
    expect((await teamRow(team.id)).seats_used).toBe(2);
    expect(await later.runDue()).toBe(0);
    expect((await teamRow(team.id)).seats_used).toBe(1);
    const status = await t.lectern.db.kysely.selectFrom('team_invitations').select('status').where('team_id', '=', team.id).executeTakeFirstOrThrow();
    expect(status.status).toBe('expired');
  });

  it("rights follow the team: cancelled, members read to the period's end; lapsed, they stop; reactivated, they read again", async () => {
    const member = await account('expired');
    const late = await account('expired');
    const { owner, team } = await teamOf(3, [member.email, late.email]);
    // The late one's link still good when the team lapses (as one sent in the period's last week would be).
    await t.lectern.db.kysely.updateTable('team_invitations').set({ expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString() }).where('email', '=', late.email).execute();
    await member.client.post(teamPaths.invitationByToken(), { token: await tokenFor(member.email) });
    expect(await reads(member.client)).toBe(200);
    const cancelled = await owner.client.post(teamPaths.cancel(team.id));
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', live: true });
    expect(await reads(member.client)).toBe(200);
    const end = new Date(Date.parse(cancelled.json().subscription_ends_at) + 60_000);
    expect(await at(end).runDue()).toBeGreaterThanOrEqual(1);
    expect(await reads(member.client)).toBe(403);
    expect(await reads(owner.client)).toBe(403);
    expect(await history(member.email)).toEqual(['team_joined', 'team_lapsed']);
    const view = (await owner.client.get(teamPaths.team(team.id))).json();
    expect(view).toMatchObject({ status: 'expired', live: false });
    // a lapsed team takes no one in, and invites no one
    const tooLate = await late.client.post(teamPaths.invitationByToken(), { token: await tokenFor(late.email) });
    expect(tooLate.statusCode).toBe(400);
    expect(tooLate.json().errors.token).toEqual([TEAM_MESSAGES.joinLapsed]);
    expect(await history(late.email)).toEqual([]);
    const refused = await owner.client.post(teamPaths.invitations(team.id), { emails: ['nobody-yet@example.com'] });
    expect(refused.json().errors.emails).toEqual([TEAM_MESSAGES.teamNotLive]);
    const back = await owner.client.post(teamPaths.reactivate(team.id));
    expect(back.json()).toMatchObject({ status: 'active', live: true });
    expect(await reads(member.client)).toBe(200);
    const invoices = (await owner.client.get('/api/v2/account/subscription/')).json().invoices;
    expect(invoices).toHaveLength(2);
    expect(await history(owner.email)).toEqual(['team_created', 'team_invited', 'team_member_joined', 'team_cancelled', 'team_expired', 'team_lapsed', 'team_reactivated', 'team_restored']);
  });

  it('renews an active team at the end of its period with a new invoice for its seats', async () => {
    const { owner, team } = await teamOf(3);
    const end = new Date(Date.parse(team.subscription_ends_at!) + 60_000);
    expect(await at(end).runDue()).toBeGreaterThanOrEqual(1);
    // a second runner renews nothing twice
    await at(end).runDue();
    const after = await teamRow(team.id);
    expect(Date.parse(after.subscription_ends_at!)).toBeGreaterThan(end.getTime() + 25 * DAY);
    const invoices = (await owner.client.get('/api/v2/account/subscription/')).json().invoices;
    expect(invoices).toHaveLength(2);
    expect(invoices[0]).toMatchObject({ seats: 3, amount_cents: 3 * 2400 });
    expect(await history(owner.email)).toEqual(['team_created', 'team_renewed']);
  });

  it("gives a 404 for another team to its owner and members, and lets an admin manage it", async () => {
    const member = await account('expired');
    const { owner, team } = await teamOf(2, [member.email]);
    await member.client.post(teamPaths.invitationByToken(), { token: await tokenFor(member.email) });
    const other = await teamOf(2);
    const stranger = await account('subscriber');
    for (const client of [other.owner.client, stranger.client]) {
      expect((await client.get(teamPaths.team(team.id))).statusCode).toBe(404);
      expect((await client.post(teamPaths.invitations(team.id), { emails: ['x@example.com'] })).statusCode).toBe(404);
      expect((await client.request('DELETE', teamPaths.member(team.id, member.user.uuid))).statusCode).toBe(404);
      expect((await client.request('PUT', teamPaths.seats(team.id), { json: { seats: 5 } })).statusCode).toBe(404);
      expect((await client.post(teamPaths.cancel(team.id))).statusCode).toBe(404);
    }
    // nor can one team's owner remove another team's member through their own team
    expect((await other.owner.client.request('DELETE', teamPaths.member(other.team.id, member.user.uuid))).statusCode).toBe(404);
    expect((await member.client.get(teamPaths.team(other.team.id))).statusCode).toBe(404);
    expect((await new TestClient(t.lectern.app).get(teamPaths.team(team.id))).statusCode).toBe(401);
    expect((await member.client.get(teamPaths.team(999_999))).statusCode).toBe(404);
    expect((await member.client.get(teamPaths.team('abc'))).statusCode).toBe(400);
    const seen = (await admin.get(teamPaths.team(team.id))).json();
    expect(seen).toMatchObject({ role: 'admin', members: [{ email: owner.email }, { email: member.email }] });
    expect(await reads(member.client)).toBe(200);
  });

  it('two accepts of one invitation at once: one joins; the same reader clicking twice is one join', async () => {
    const invited = `raced-${engine}@example.com`;
    const { team } = await teamOf(3, [invited]);
    const token = await tokenFor(invited);
    const x = await account('expired');
    const y = await account('expired');
    const [a, b] = await Promise.all([x.client.post(teamPaths.invitationByToken(), { token }), y.client.post(teamPaths.invitationByToken(), { token })]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
    expect([a, b].find((r) => r.statusCode === 400)!.json().detail).toBe(TEAM_MESSAGES.invitationDead);
    const winner = a.statusCode === 200 ? x : y;
    const loser = a.statusCode === 200 ? y : x;
    expect(await reads(winner.client)).toBe(200);
    expect(await reads(loser.client)).toBe(403);
    expect((await teamRow(team.id)).seats_used).toBe(2);
    const members = await t.lectern.db.kysely.selectFrom('users').select('email').where('team_id', '=', team.id).execute();
    expect(members).toHaveLength(2);
    // one reader, two clicks
    const { owner: owner2, team: team2 } = await teamOf(3, [`twice-${engine}@example.com`]);
    const token2 = await tokenFor(`twice-${engine}@example.com`);
    const z = await account('expired');
    const [c, d] = await Promise.all([z.client.post(teamPaths.invitationByToken(), { token: token2 }), z.client.post(teamPaths.invitationByToken(), { token: token2 })]);
    expect([c.statusCode, d.statusCode]).toEqual([200, 200]);
    expect((await teamRow(team2.id)).seats_used).toBe(2);
    expect((await history(z.email)).filter((e) => e === 'team_joined')).toHaveLength(1);
    // two removals of that member at once: one seat back, one history entry
    const [r1, r2] = await Promise.all([
      owner2.client.request('DELETE', teamPaths.member(team2.id, z.user.uuid)),
      owner2.client.request('DELETE', teamPaths.member(team2.id, z.user.uuid)),
    ]);
    expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
    expect((await teamRow(team2.id)).seats_used).toBe(1);
    expect(await history(z.email)).toEqual(['team_joined', 'team_removed']);
  });

  it('two invitations of one address at once take one seat; the last seat goes to one of two addresses', async () => {
    const { owner, team } = await teamOf(3);
    const email = `double-${engine}@example.com`;
    const [a, b] = await Promise.all([
      owner.client.post(teamPaths.invitations(team.id), { emails: [email] }),
      owner.client.post(teamPaths.invitations(team.id), { emails: [email] }),
    ]);
    expect([a.statusCode, b.statusCode].every((s) => s === 201 || s === 400)).toBe(true);
    expect([a.statusCode, b.statusCode]).toContain(201);
    const row = await teamRow(team.id);
    expect(row.seats_used).toBe(2);
    const pending = await t.lectern.db.kysely.selectFrom('team_invitations').select('email').where('team_id', '=', team.id).where('status', '=', 'pending').execute();
    expect(pending).toEqual([{ email }]);
    const [c, d] = await Promise.all([
      owner.client.post(teamPaths.invitations(team.id), { emails: [`last-1-${engine}@example.com`] }),
      owner.client.post(teamPaths.invitations(team.id), { emails: [`last-2-${engine}@example.com`] }),
    ]);
    expect([c.statusCode, d.statusCode].sort()).toEqual([201, 400]);
    expect((await teamRow(team.id)).seats_used).toBe(3);
  });

  it('refuses a team name that is not one line of text: the invitation email carries no lines of the owner\'s making', async () => {
    const owner = await account();
    for (const name of ['Readers\n\nYour account is locked: sign in at https://evil.example/', 'Readers\r\nBcc: victim@example.com', 'Tab\there', 'Line\u2028separated']) {
      const res = await owner.client.post(teamPaths.create(), { name, plan: 'basic', seats: 2, emails: [`injected-${engine}@example.com`] });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(res.json().errors.name).toEqual([TEAM_MESSAGES.nameOneLine]);
    }
    expect(smtp.messages.some((m) => m.to === `injected-${engine}@example.com`)).toBe(false);
    // markup is text in a text-only mail: kept as typed, never read as HTML
    const res = await owner.client.post(teamPaths.create(), { name: '<b>Readers</b> & co', plan: 'basic', seats: 2, emails: [`markup-${engine}@example.com`] });
    expect(res.statusCode).toBe(201);
    await tokenFor(`markup-${engine}@example.com`);
    const raw = smtp.messages.find((m) => m.to === `markup-${engine}@example.com`)!.raw;
    expect(raw).not.toMatch(/content-type:\s*text\/html/i);
    expect(bodyOf(raw)).toContain('the team <b>Readers</b> & co on Lectern');
  });

  it('never counts seats below zero: a member leaves a team no one bought (users:create --team)', async () => {
    n += 1;
    const email = `unowned-${n}-${engine}@example.com`;
    await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status: 'expired', team: `Unowned ${engine}` });
    const client = new TestClient(t.lectern.app);
    await client.login(email, PASSWORD);
    const user = await userByEmail(email);
    const before = await teamRow(user.team_id!);
    expect([before.owner_id, before.seats, before.seats_used]).toEqual([null, 0, 0]);
    const left = await client.request('DELETE', teamPaths.member(user.team_id!, user.uuid));
    expect(left.statusCode, left.body).toBe(200);
    expect((await teamRow(user.team_id!)).seats_used).toBe(0);
  });

  it('seats in use stay members plus pending invitations, within the seats, when revoke, accept, remove, leave, invite and fewer seats race', async () => {
    const a = `race-a-${engine}@example.com`;
    const b = await account('expired');
    const c = await account('expired');
    const { owner, team } = await teamOf(5, [a, b.email, c.email]);
    const [tokenA, tokenB, tokenC] = [await tokenFor(a), await tokenFor(b.email), await tokenFor(c.email)];
    await c.client.post(teamPaths.invitationByToken(), { token: tokenC });
    const invitationA = team.invitations.find((i) => i.email === a)!;
    const visitor = new TestClient(t.lectern.app);
    await visitor.get('/healthz');
    const answers = await Promise.all([
      owner.client.request('DELETE', teamPaths.invitation(team.id, invitationA.id)),
      visitor.post(teamPaths.invitationByToken(), { token: tokenA, password: 'a member of the reading circle' }),
      b.client.post(teamPaths.invitationByToken(), { token: tokenB }),
      owner.client.request('DELETE', teamPaths.member(team.id, c.user.uuid)),
      c.client.request('DELETE', teamPaths.member(team.id, c.user.uuid)),
      owner.client.post(teamPaths.invitations(team.id), { emails: [`race-d-${engine}@example.com`] }),
      owner.client.post(teamPaths.invitations(team.id), { emails: [`race-e-${engine}@example.com`] }),
      owner.client.request('PUT', teamPaths.seats(team.id), { json: { seats: 4 } }),
    ]);
    for (const r of answers) expect(r.statusCode, r.body).toBeLessThan(500);
    const row = await teamRow(team.id);
    const members = await t.lectern.db.kysely.selectFrom('users').select('id').where('team_id', '=', team.id).execute();
    const pending = await t.lectern.db.kysely.selectFrom('team_invitations').select('id').where('team_id', '=', team.id).where('status', '=', 'pending').execute();
    expect(row.seats_used).toBe(members.length + pending.length);
    expect(row.seats_used).toBeLessThanOrEqual(row.seats);
    expect(row.seats_used).toBeGreaterThanOrEqual(1);
  });

  it("a member with a subscription of their own keeps it: removed, they read on as their own account allows", async () => {
    const own = await account('subscriber');
    const { owner, team } = await teamOf(2, [own.email]);
    expect((await own.client.post(teamPaths.invitationByToken(), { token: await tokenFor(own.email) })).statusCode).toBe(200);
    expect(await reads(own.client)).toBe(200);
    expect((await owner.client.request('DELETE', teamPaths.member(team.id, own.user.uuid))).statusCode).toBe(200);
    expect(await reads(own.client)).toBe(200);
    expect((await own.client.get('/api/v2/account/subscription/')).json().status).toBe('subscriber');
    expect(await history(own.email)).toEqual(['team_joined', 'team_removed']);
  });

  it('shows an owner on a trial, reading through the paid team, as a subscriber (no trial nag) while the team is live', async () => {
    const owner = await account('trial', 'trial-owner');
    const before = (await owner.client.get('/u/information_for_javascript')).json();
    expect(before.subscription_status).toBe('trial');
    expect((await owner.client.post(teamPaths.create(), { name: `Trial team ${engine}`, plan: 'basic', seats: 2, emails: [] })).statusCode).toBe(201);
    // The auth cache keeps the session's account a while: a fresh sign-in reads the team as the next request would.
    const again = new TestClient(t.lectern.app);
    await again.login(owner.email, PASSWORD);
    expect((await again.get('/u/information_for_javascript')).json().subscription_status).toBe('subscriber');
  });

  it("bounds a day's invitations by the seats and a few more, so an invite-and-revoke loop cannot mail without end", async () => {
    const { owner, team } = await teamOf(2);
    const k = t.lectern.db.kysely;
    const ownerRow = await k.selectFrom('users').select('id').where('email', '=', owner.email).executeTakeFirstOrThrow();
    // As if the loop had run all day: the seat is free again (revoked), the invitations of the last 24 hours counted.
    const at = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    await k
      .insertInto('team_invitations')
      .values(Array.from({ length: 2 + TEAM_EXTRA_INVITES_PER_DAY }, (_v, i) => ({ team_id: team.id, email: `looped-${i}@example.com`, token_hash: `looped-${engine}-${i}`, expires_at: at, status: 'revoked' as const, invited_by: ownerRow.id, accepted_by: null, created_at: at, closed_at: at })))
      .execute();
    const refused = await owner.client.post(teamPaths.invitations(team.id), { emails: [`one-more-${engine}@example.com`] });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toBe(TEAM_MESSAGES.tooManyToday(2 + TEAM_EXTRA_INVITES_PER_DAY));
    // A day later they count no more.
    const yesterday = new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString();
    await k.updateTable('team_invitations').set({ created_at: yesterday }).where('invited_by', '=', ownerRow.id).where('email', 'like', 'looped-%').execute();
    expect((await owner.client.post(teamPaths.invitations(team.id), { emails: [`one-more-${engine}@example.com`] })).statusCode).toBe(201);
  });

  it('limits invitation requests per inviting account', async () => {
    const { owner, team } = await teamOf(2);
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await owner.client.post(teamPaths.invitations(team.id), { emails: [] })).statusCode);
    // teamOf's creation counted once: nine more 400s, then 429
    expect(codes.slice(0, 9).every((c) => c === 400)).toBe(true);
    expect(codes.at(-1)).toBe(429);
  });
});
