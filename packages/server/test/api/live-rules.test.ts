/**
 * Two rules written twice, in TypeScript (policies/reading.ts) and in SQL (the repositories), held to one truth table
 * on both engines: "a team's subscription is live" (teamIsLive; repositories/teams.ts, where an invitation takes a
 * seat only while the team is live) and "a trial (or a cancelled account's paid period) has ended" (effectiveStatus;
 * repositories/subscriptions.ts `due`, which finds the accounts the scheduled job makes expired). Every state meets
 * every end: none, passed, this very instant, still to come.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/db/schema.ts';
import { effectiveStatus, teamIsLive } from '../../src/policies/reading.ts';
import { SubscriptionsRepository } from '../../src/repositories/subscriptions.ts';
import { TeamConflict, TeamsRepository } from '../../src/repositories/teams.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const ENDS: Record<string, string | null> = {
  none: null,
  passed: new Date(NOW.getTime() - 1).toISOString(),
  now: NOW.toISOString(),
  'to come': new Date(NOW.getTime() + 1).toISOString(),
  'a year ago': '2025-03-01T12:00:00.000Z',
  'next year': '2027-03-01T12:00:00.000Z',
};

describe.each(ENGINES)('one truth table for the rules written in TypeScript and SQL, on %s', (engine) => {
  let t: TestApp;
  let inviter: UserRow;

  beforeAll(async () => {
    t = await startTestApp(engine);
    inviter = await t.lectern.services.accounts.createUser({ email: 'owner@example.com', password: 'a long enough password' });
  });
  afterAll(() => t.close());

  it("a team's subscription is live: TypeScript's teamIsLive and the SQL that lets an invitation take a seat agree", async () => {
    const db = t.lectern.db.kysely;
    const teams = new TeamsRepository(db);
    const rows: { case: string; ts: boolean; sql: boolean }[] = [];
    for (const status of ['active', 'cancelled', 'expired', null] as const) {
      for (const [end, at] of Object.entries(ENDS)) {
        const team = await db
          .insertInto('teams')
          .values({ name: `${status} ${end}`, created_at: NOW.toISOString(), owner_id: null, plan: 'pro', seats: 10, seats_used: 1, status, subscription_ends_at: at })
          .returning(['id', 'status', 'subscription_ends_at'])
          .executeTakeFirstOrThrow();
        const invitation = { email: `${randomUUID()}@example.com`, token_hash: randomUUID(), expires_at: new Date(NOW.getTime() + 86_400_000).toISOString() };
        const taken = await teams
          .invite({ teamId: team.id, invitedBy: inviter.id, invitations: [invitation], history: [], at: NOW.toISOString() })
          .then(
            () => true,
            (e: unknown) => {
              if (e instanceof TeamConflict && e.reason === 'no-seats') return false;
              throw e;
            },
          );
        rows.push({ case: `${status} / ${end}`, ts: teamIsLive(team, NOW), sql: taken });
      }
    }
    expect(rows.filter((r) => r.ts !== r.sql)).toEqual([]);
    // the table is not one-sided: some teams are live and some are not
    expect(new Set(rows.map((r) => r.ts))).toEqual(new Set([true, false]));
  });

  it('a trial or a paid period has ended: effectiveStatus and the SQL that finds the accounts due agree', async () => {
    const db = t.lectern.db.kysely;
    const repo = new SubscriptionsRepository(db);
    const cases = new Map<number, { case: string; user: UserRow }>();
    for (const status of ['trial', 'cancelled'] as const) {
      for (const [end, at] of Object.entries(ENDS)) {
        const user = await db
          .insertInto('users')
          .values({
            uuid: randomUUID(),
            email: `${status}-${end.replace(/ /g, '-')}@example.com`,
            username: `${status}-${end.replace(/ /g, '-')}`,
            password_hash: 'not a hash: never signs in',
            status,
            trial_ends_at: status === 'trial' ? at : null,
            subscription_ends_at: status === 'cancelled' ? at : null,
            team_id: null,
            plan: null,
            is_admin: 0,
            is_content_creator: 0,
            is_preview_creator: 0,
            created_at: '2025-01-01T00:00:00.000Z',
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        cases.set(user.id, { case: `${status} / ${end}`, user });
      }
    }
    const due = new Set((await repo.due(NOW.toISOString())).map((u) => u.id));
    const rows = [...cases].map(([id, c]) => ({ case: c.case, ts: effectiveStatus(c.user, NOW) === 'expired', sql: due.has(id) }));
    expect(rows.filter((r) => r.ts !== r.sql)).toEqual([]);
    expect(new Set(rows.map((r) => r.ts))).toEqual(new Set([true, false]));
  });
});
