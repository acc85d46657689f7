/**
 * Broken chapters (issue 24): a chapter whose XHTML is not well-formed XML is read with the HTML parser's recovery;
 * `markup_error` keeps why (the importer's reason), so the reader can say the book has an error. The title keeps
 * the import's warnings (JSON array of plain-English lines) for the operators' console. Both null for what was
 * imported before, until it is imported again.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('chapters').addColumn('markup_error', 'text').execute();
  await db.schema.alterTable('titles').addColumn('import_warnings', 'text').execute();
}
