/** Changes every server process must hear of (services/server-changes.ts), one row each. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export interface ServerChange {
  id: number;
  kind: string;
  subject: string;
}

export class ServerChangesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async record(kind: string, subject: string, at: string): Promise<void> {
    await this.db.insertInto('server_changes').values({ kind, subject, changed_at: at }).execute();
  }

  /** The newest row's id (0 when there is none). */
  async latest(): Promise<number> {
    const row = await this.db.selectFrom('server_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /** Rows after `id`, oldest first. */
  async since(id: number, limit = 1_000): Promise<ServerChange[]> {
    const rows = await this.db.selectFrom('server_changes').select(['id', 'kind', 'subject']).where('id', '>', id).orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }

  /** Deletes rows recorded before `at` (every process has read them long since); returns how many went. */
  async purgeBefore(at: string): Promise<number> {
    const done = await this.db.deleteFrom('server_changes').where('changed_at', '<', at).executeTakeFirst();
    return Number(done.numDeletedRows);
  }
}
