/**
 * Annotations: rows in, rows out, and the store's search as one query. Who may see what is decided by the service
 * (core's `permits`); the search takes that rule already turned into a `Visibility`, so paging and `total` count
 * only what the caller may read.
 */
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { AnnotationRow, AnnotationsTable, Database } from '../db/schema.ts';
import { likeContains } from './like.ts';

export type NewAnnotation = AnnotationsTable;
export type AnnotationChanges = Partial<Omit<AnnotationsTable, 'id' | 'title_id' | 'chapter_href' | 'user_id' | 'user_uuid' | 'consumer' | 'created_at'>>;

/**
 * Which rows a caller may read (core's `permits` for 'read', as SQL): the world group; and for a signed-in caller
 * their own, all of their consumer's when they administer it, the authenticated group, the consumer group and
 * their id in the read list (same consumer). `openChaptersOnly`: others' notes only on chapters the caller may
 * read (a note quotes its chapter).
 */
export interface Visibility {
  caller: { id: number; uuid: string; consumer: string; isAdmin: boolean } | null;
  openChaptersOnly: boolean;
}

export interface AnnotationFilter {
  titleId: number;
  /** null: every chapter of the book */
  chapterHref: string | null;
  uri?: string;
  userUuid?: string;
  /** each word must appear in the folded field */
  textWords?: string[];
  quoteWords?: string[];
  tagWords?: string[];
}

/** LIKE's wildcards taken literally (escape character: backslash, named in each LIKE). */
/** A uuid in a JSON list of principals: uuids hold no LIKE wildcard and no quote, so this is exact. */
const UUID = /^[0-9a-f-]{36}$/i;

export class AnnotationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: NewAnnotation): Promise<void> {
    await this.db.insertInto('annotations').values(row).execute();
  }

  /** Inserts the row unless one with its id exists; true when this call inserted it. */
  async insertOnce(row: NewAnnotation): Promise<boolean> {
    const made = await this.db.insertInto('annotations').values(row).onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst();
    return made !== undefined;
  }

  find(id: string): Promise<AnnotationRow | undefined> {
    return this.db.selectFrom('annotations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, changes: AnnotationChanges): Promise<void> {
    await this.db.updateTable('annotations').set(changes).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('annotations').where('id', '=', id).execute();
  }

  /** One page of what the caller may read, oldest first, and how many there are in all. */
  async search(filter: AnnotationFilter, visibility: Visibility, limit: number, offset: number): Promise<{ total: number; rows: AnnotationRow[] }> {
    const base = this.db
      .selectFrom('annotations')
      .where('annotations.title_id', '=', filter.titleId)
      .$if(filter.chapterHref !== null, (q) => q.where('annotations.chapter_href', '=', filter.chapterHref!))
      .$if(filter.uri !== undefined, (q) => q.where('annotations.uri', '=', filter.uri!))
      .$if(filter.userUuid !== undefined, (q) => q.where('annotations.user_uuid', '=', filter.userUuid!))
      .where((eb) => {
        const words = [
          ...(filter.textWords ?? []).map((w) => ['annotations.text_lc', w] as const),
          ...(filter.quoteWords ?? []).map((w) => ['annotations.quote_lc', w] as const),
          ...(filter.tagWords ?? []).map((w) => ['annotations.tags_lc', w] as const),
        ];
        return eb.and(words.map(([column, w]) => sql<boolean>`${sql.ref(column)} like ${likeContains(w)} escape '\\'`));
      })
      .where((eb) => readable(eb, visibility));
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      limit === 0
        ? Promise.resolve([])
        : base.selectAll('annotations').orderBy('annotations.created_at').orderBy('annotations.id').limit(limit).offset(offset).execute(),
    ]);
    return { total: Number(count.n), rows };
  }

  /** The newest of what the caller may read (Annotator's index), at most `limit`. */
  index(filter: Pick<AnnotationFilter, 'titleId' | 'chapterHref'>, visibility: Visibility, limit: number): Promise<AnnotationRow[]> {
    return this.db
      .selectFrom('annotations')
      .selectAll('annotations')
      .where('annotations.title_id', '=', filter.titleId)
      .$if(filter.chapterHref !== null, (q) => q.where('annotations.chapter_href', '=', filter.chapterHref!))
      .where((eb) => readable(eb, visibility))
      .orderBy('annotations.created_at', 'desc')
      .orderBy('annotations.id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Every annotation a user made in a book (their export), oldest first. */
  ofUserInTitle(userId: number, titleId: number): Promise<AnnotationRow[]> {
    return this.db
      .selectFrom('annotations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('title_id', '=', titleId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}

function readable(eb: ExpressionBuilder<Database, 'annotations'>, v: Visibility) {
  const caller = v.caller;
  const own = caller ? eb.and([eb('annotations.user_id', '=', caller.id), eb('annotations.consumer', '=', caller.consumer)]) : null;
  const others = [eb('annotations.read_world', '=', 1)];
  if (caller) {
    const sameConsumer = eb('annotations.consumer', '=', caller.consumer);
    if (caller.isAdmin) others.push(sameConsumer);
    others.push(eb('annotations.read_authenticated', '=', 1));
    others.push(eb.and([sameConsumer, eb('annotations.read_consumer', '=', 1)]));
    if (UUID.test(caller.uuid)) others.push(eb.and([sameConsumer, eb('annotations.perm_read', 'like', `%"${caller.uuid}"%`)]));
  }
  let othersAllowed = eb.or(others);
  if (v.openChaptersOnly) {
    othersAllowed = eb.and([
      othersAllowed,
      eb.exists(
        eb
          .selectFrom('chapters')
          .select(sql.lit(1).as('one'))
          .whereRef('chapters.title_id', '=', 'annotations.title_id')
          .whereRef('chapters.full_path', '=', 'annotations.chapter_href')
          .where((c) => c.or([c('chapters.as_sample', '=', 1), c('chapters.is_public', '=', 1)])),
      ),
    ]);
  }
  return own ? eb.or([own, othersAllowed]) : othersAllowed;
}
