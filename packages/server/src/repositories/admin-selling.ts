/**
 * The operators' view of selling (docs/decisions.md "The console's selling"): invoices with the account billed and the
 * team paid for, teams with their owner and member count, and a promotion code's redemptions (the invoices that used
 * it). Newest first, paged by id (keyset: `after` is the previous page's last id).
 */
import { type Kysely, sql } from 'kysely';
import type { Database, InvoiceRow, TeamRow } from '../db/schema.ts';
import { likeContains } from './like.ts';

export type InvoiceListRow = InvoiceRow & { uuid: string; email: string; team_name: string | null };
export type TeamListRow = TeamRow & { owner_uuid: string | null; owner_email: string | null; members: number | string };

export class AdminSellingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** `limit + 1` invoices, newest first; `status` null for every state, `contains` part of the account's email. */
  invoices(f: { status: 'open' | 'paid' | null; contains?: string; after?: number; limit: number }): Promise<InvoiceListRow[]> {
    let q = this.db
      .selectFrom('invoices as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .leftJoin('teams as t', 't.id', 'i.team_id')
      .selectAll('i')
      .select(['u.uuid', 'u.email', 't.name as team_name']);
    if (f.status) q = q.where('i.status', '=', f.status);
    if (f.contains) q = q.where(sql<boolean>`lower(u.email) like ${likeContains(f.contains)} escape '\\'`);
    if (f.after !== undefined) q = q.where('i.id', '<', f.after);
    return q.orderBy('i.id', 'desc').limit(f.limit + 1).execute();
  }

  private teamsQuery() {
    return this.db
      .selectFrom('teams as t')
      .leftJoin('users as o', 'o.id', 't.owner_id')
      .selectAll('t')
      .select((eb) => [
        'o.uuid as owner_uuid',
        'o.email as owner_email',
        eb.selectFrom('users as m').select((m) => m.fn.countAll<number | string>().as('n')).whereRef('m.team_id', '=', 't.id').as('members'),
      ]);
  }

  /** `limit + 1` teams, newest first; `contains` part of the name or of the owner's email. */
  teams(f: { contains?: string; after?: number; limit: number }): Promise<TeamListRow[]> {
    let q = this.teamsQuery();
    if (f.contains) {
      const pattern = likeContains(f.contains);
      q = q.where((eb) => eb.or([sql<boolean>`lower(t.name) like ${pattern} escape '\\'`, sql<boolean>`lower(o.email) like ${pattern} escape '\\'`]));
    }
    if (f.after !== undefined) q = q.where('t.id', '<', f.after);
    return q.orderBy('t.id', 'desc').limit(f.limit + 1).execute() as Promise<TeamListRow[]>;
  }

  team(id: number): Promise<TeamListRow | undefined> {
    return this.teamsQuery().where('t.id', '=', id).executeTakeFirst() as Promise<TeamListRow | undefined>;
  }

  /** `limit + 1` invoices that used the code, newest first. */
  redemptions(code: string, f: { after?: number; limit: number }): Promise<InvoiceListRow[]> {
    let q = this.db
      .selectFrom('invoices as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .leftJoin('teams as t', 't.id', 'i.team_id')
      .selectAll('i')
      .select(['u.uuid', 'u.email', 't.name as team_name'])
      .where('i.promotion_code', '=', code);
    if (f.after !== undefined) q = q.where('i.id', '<', f.after);
    return q.orderBy('i.id', 'desc').limit(f.limit + 1).execute();
  }
}
