/** The database round trip GET /healthz makes. */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

export class HealthRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Resolves when the database answers a trivial query; rejects when it does not. */
  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }
}
