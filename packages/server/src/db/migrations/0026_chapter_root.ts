/**
 * Reading fidelity (issue 12): the class, id and style of a chapter's own `<html>` and `<body>` (ingest/render.ts
 * rootAttributes), as JSON, for the reader to set on its frame's; null when neither had any, and for chapters
 * imported before, until their book is imported again.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('chapters').addColumn('root_attributes', 'text').execute();
}
