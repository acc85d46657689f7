/** The operators' audit log (migration 0030): written once per action, read newest first by id (keyset). */
import type { Insertable, Kysely } from 'kysely';
import type { AuditLogRow, AuditLogTable, Database } from '../db/schema.ts';

/** An entry as written: every column but the id (schema.ts's AuditLogTable is the one declaration). */
export type NewAuditRow = Omit<Insertable<AuditLogTable>, 'id'>;

export interface AuditFilter {
  actorLabel?: string;
  action?: string;
  targetKind?: string;
  targetId?: string;
  from?: string;
  to?: string;
  /** ids below this one (the previous page's last) */
  beforeId?: number;
  limit: number;
}

export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: NewAuditRow): Promise<void> {
    await this.db.insertInto('audit_log').values(row).execute();
  }

  /** Newest first; `limit + 1` rows are read so the caller can tell whether another page follows. */
  list(f: AuditFilter): Promise<AuditLogRow[]> {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (f.actorLabel !== undefined) q = q.where('actor_label', '=', f.actorLabel);
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    if (f.targetKind !== undefined) q = q.where('target_kind', '=', f.targetKind);
    if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
    if (f.from !== undefined) q = q.where('at', '>=', f.from);
    if (f.to !== undefined) q = q.where('at', '<', f.to);
    if (f.beforeId !== undefined) q = q.where('id', '<', f.beforeId);
    return q.orderBy('id', 'desc').limit(f.limit + 1).execute();
  }

  /** The entries of some actions in [from, to), newest first (the dashboard's imports). */
  ofActions(actions: string[], from: string, to: string, limit: number): Promise<AuditLogRow[]> {
    return this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'in', actions)
      .where('at', '>=', from)
      .where('at', '<', to)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
