/**
 * Reading fidelity (issue 12): the direction and language the package gives a title and each creator
 * (`dir` and `xml:lang` on dc:title and dc:creator, else on <package>), so that a right-to-left title can be shown
 * as one. Null where the package says nothing.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('titles').addColumn('title_dir', 'text').execute();
  await db.schema.alterTable('titles').addColumn('title_lang', 'text').execute();
  await db.schema.alterTable('title_authors').addColumn('dir', 'text').execute();
  await db.schema.alterTable('title_authors').addColumn('lang', 'text').execute();
}
