/**
 * Rows written straight into the database, for tests of one statement or one migration that need a title without
 * an import: every column a title must have, plain values, and what the test cares about given over them.
 */
import type { Insertable } from 'kysely';
import type { TitlesTable } from '../../src/db/schema.ts';

export function bareTitleRow(bookId: string, overrides: Partial<Insertable<TitlesTable>> = {}): Insertable<TitlesTable> {
  return {
    book_id: bookId,
    title: bookId,
    title_safe: bookId,
    description: null,
    content_format: 'epub',
    source: 'test',
    language: null,
    issued: null,
    identifier: null,
    cover_path: null,
    cover_media_type: null,
    allow_scripts: 0,
    is_system_book: 0,
    page_count: null,
    file_sha256: `sha-${bookId}`,
    origin: null,
    created_at: new Date().toISOString(),
    work_title_id: null,
    ...overrides,
  };
}
