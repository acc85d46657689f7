/**
 * The operators' console, selling (issue 23): the invoices listed by state, newest first (the unpaid ones an
 * operator looks for), and a promotion code's redemptions (the invoices that used it), newest first.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('invoices_status_idx').on('invoices').columns(['status', 'id']).execute();
  await db.schema.createIndex('invoices_code_idx').on('invoices').columns(['promotion_code', 'id']).execute();
}
