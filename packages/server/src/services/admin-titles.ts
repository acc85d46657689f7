/**
 * The operators' titles (docs/decisions.md "The console's titles"): search and page every title, read one with its
 * readers' figures, edit its descriptive fields under a version check, retire and restore it. Used by the console's
 * routes and the command line; the caller writes the audit entry from what `edit` answers (the fields before and
 * after).
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  ADMIN_COVER_LIMITS,
  ADMIN_PAGE_SIZE,
  type AdminTitleDetail,
  type AdminTitleWarnings,
  type AdminTitlePage,
  type AdminTitlePatch,
  type AdminTitleReadersPage,
  type AdminTitleRow,
  type AdminTitlesQuery,
  type AdminPageQuery,
  type AdminNames,
  type AdminNamesQuery,
  type ContentFormat,
  authorSortKey,
  nameKey,
  paths,
  slugify,
  titleSortKey,
} from '@lectern/core';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TitleRow } from '../db/schema.ts';
import type { ContentStore } from '../storage/content-store.ts';
import { checkCover } from '../storage/cover-upload.ts';
import { randomToken } from '../util/random.ts';
import { AppError, fieldError, notFound } from '../errors.ts';
import type { AdminTitlesRepository, TitleEdit, TitleNames } from '../repositories/admin-titles.ts';
import { decodeKeyCursor, encodeKeyCursor } from './admin-cursor.ts';

/** A 409: someone saved the title since the caller's version; `current` is the title as it is now. */
export class TitleConflict extends AppError {
  constructor(
    detail: string,
    readonly current: AdminTitleDetail,
  ) {
    super(409, detail);
  }
}

export interface TitleChange {
  title: AdminTitleDetail;
  /** field: [before, after], only what changed */
  changed: Record<string, [unknown, unknown]>;
}

/**
 * Called once the change is committed, before anything that may still fail (forgetting caches, reading the title
 * back): the route notes its audit entry there, so a 5xx after the commit still leaves one (plugins/admin-audit.ts).
 */
export type Committed = (title: TitleRow) => void;

const afterCursor = (cursor: string) => {
  const { key, id } = decodeKeyCursor(cursor);
  return { sortTitle: key, id };
};

export class AdminTitlesService {
  constructor(
    private readonly repo: AdminTitlesRepository,
    /** forgets what this and other processes keep of the title (caches, listings' generation) */
    private readonly forget: (bookId: string, titleId: number) => Promise<void>,
    private readonly now: () => Date = () => new Date(),
    /** where covers go, and whether this server has a scripted origin (scripts can be allowed only then) */
    private readonly files: { store: ContentStore; scriptedOrigin: boolean } | null = null,
  ) {}

  /**
   * A new cover from an operator's upload, checked as hostile input (storage/cover-upload.ts); a 400 naming `file`
   * says why not. Stored in a folder of its own beside the title's edition folders (`<book_id>.cover-<token>`), so
   * replacing it removes only what an upload made, never a file of the book's own.
   */
  async setCover(bookId: string, bytes: Buffer, committed?: Committed): Promise<{ title: AdminTitleDetail; width: number; height: number; media_type: string }> {
    const title = await this.find(bookId);
    if (!this.files) throw new Error('AdminTitlesService: no content store given');
    const mb = ADMIN_COVER_LIMITS.maxBytes / (1024 * 1024);
    if (bytes.length > ADMIN_COVER_LIMITS.maxBytes) throw fieldError('file', M.coverTooLarge(mb));
    const checked = await checkCover(bytes, ADMIN_COVER_LIMITS);
    if (!checked.ok) {
      throw fieldError('file', checked.reason === 'kind' ? M.coverKind : checked.reason === 'broken' ? M.coverBroken : M.coverDimensions(ADMIN_COVER_LIMITS.maxSide, ADMIN_COVER_LIMITS.maxPixels / 1_000_000));
    }
    const folder = `${title.book_id}${COVER_FOLDER}${randomToken(6)}`;
    const stored = `${folder}/cover.${checked.kind.ext}`;
    // staged and committed as an import's files are (storage/content-store.ts), removed again if the row is not set
    const staging = await this.files.store.beginStaging();
    let inStore = false;
    let before: string | null;
    try {
      await fs.writeFile(path.join(staging.dir, `cover.${checked.kind.ext}`), checked.data);
      await staging.commit(folder);
      inStore = true;
      ({ before } = await this.repo.setCover(title, stored, checked.kind.mediaType));
    } catch (err) {
      await (inStore ? this.files.store.removeFolder(folder) : staging.abort()).catch(() => {});
      throw err;
    }
    committed?.(title);
    // the cover an earlier upload made (with its card variant); a book's own cover file stays with its edition
    const old = before?.split('/')[0];
    if (old && old.includes(COVER_FOLDER) && old !== folder) await this.files.store.removeFolder(old).catch(() => {});
    await this.forget(title.book_id, title.id);
    return { title: await this.detail(bookId), width: checked.width, height: checked.height, media_type: checked.kind.mediaType };
  }

  /**
   * The flag `import --allow-scripts` sets. Only with a scripted origin (a 400 naming allow_scripts otherwise, to
   * allow; turning it off is always possible). Answers the title and whether the flag moved.
   */
  async setAllowScripts(bookId: string, allow: boolean, committed?: Committed): Promise<{ title: AdminTitleDetail; changed: boolean }> {
    const title = await this.find(bookId);
    if (allow && !this.files?.scriptedOrigin) throw fieldError('allow_scripts', M.noScriptedOrigin);
    const changed = await this.repo.setAllowScripts(title, allow);
    if (changed) {
      committed?.(title);
      await this.forget(title.book_id, title.id);
    }
    return { title: await this.detail(bookId), changed };
  }

  async list(q: AdminTitlesQuery): Promise<AdminTitlePage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    const words = q.q?.trim() ?? '';
    const rows = await this.repo.page({
      ...(words ? { titlePrefix: titleSortKey(words) || undefined, authorPrefix: nameKey(words) || undefined, bookId: words } : {}),
      state: q.state ?? 'active',
      format: q.content_format,
      after: q.cursor !== undefined ? afterCursor(q.cursor) : undefined,
      limit,
    });
    const page = rows.slice(0, limit);
    const ids = page.map((r) => r.id);
    const [names, picked] = await Promise.all([this.repo.namesOf(ids), this.repo.pickedIds(ids)]);
    const last = page[page.length - 1];
    return {
      results: page.map((r) => rowOf(r, names.get(r.id)!, picked.has(r.id))),
      next_cursor: rows.length > limit && last ? encodeKeyCursor(last.sort_title, last.id) : null,
    };
  }

  async detail(bookId: string): Promise<AdminTitleDetail> {
    return this.detailOf(await this.find(bookId));
  }

  /**
   * What the importer forgave (docs/decisions.md "A chapter that is not well-formed"): the kept warnings and the
   * chapters shown recovered.
   */
  async warnings(bookId: string): Promise<AdminTitleWarnings> {
    const title = await this.find(bookId);
    const warnings = title.import_warnings ? (JSON.parse(title.import_warnings) as string[]) : [];
    return { recorded: title.import_warnings != null, warnings, recovered_chapters: await this.repo.recoveredChapters(title.id) };
  }

  /**
   * Edits the fields sent when the title is still at `version`; a 409 naming who saved last (the caller's audit
   * log knows) when not. Answers the title after, and what changed.
   */
  async edit(
    bookId: string,
    patch: AdminTitlePatch,
    version: number | undefined,
    lastEditor: (bookId: string) => Promise<string | null>,
    committed?: Committed,
  ): Promise<TitleChange> {
    const title = await this.find(bookId);
    if (version === undefined) throw fieldError('version', M.versionMissing);
    if (version !== title.version) throw new TitleConflict(M.versionConflict((await lastEditor(bookId)) ?? 'another operator'), await this.detailOf(title));
    // the fields compared with after the edit (no readers' figures: those are read once, for the answer)
    const before = this.fieldsOf(title, (await this.repo.namesOf([title.id])).get(title.id)!, (await this.repo.pickedIds([title.id])).has(title.id));
    const e: TitleEdit = {};
    if (patch.title !== undefined) Object.assign(e, { title: patch.title, sort_title: titleSortKey(patch.title) });
    if (patch.authors !== undefined) {
      const authors = [...new Set(patch.authors)];
      e.authors = authors.map((name) => ({ name, name_key: nameKey(name) }));
      e.sort_author = authorSortKey(authors);
    }
    if (patch.description !== undefined) e.description = patch.description;
    if (patch.language !== undefined) e.language = patch.language;
    if (patch.publisher !== undefined) e.publisher = patch.publisher === null ? null : { name: patch.publisher, slug: slugify(patch.publisher), name_key: nameKey(patch.publisher) };
    if (patch.topics !== undefined) {
      const bySlug = new Map(patch.topics.map((name) => [slugify(name), name] as const));
      e.topics = [...bySlug].map(([slug, name]) => ({ slug, name, name_key: nameKey(name) }));
    }
    if (patch.editors_pick !== undefined) e.editors_pick = patch.editors_pick;
    if (!(await this.repo.edit(title, version, e))) {
      // saved by someone between our read and our write
      throw new TitleConflict(M.versionConflict((await lastEditor(bookId)) ?? 'another operator'), await this.detail(bookId));
    }
    committed?.(title);
    await this.forget(title.book_id, title.id);
    const after = await this.detail(bookId);
    const changed: Record<string, [unknown, unknown]> = {};
    const compare = (k: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b)) changed[k] = [a, b];
    };
    compare('title', before.title, after.title);
    compare('authors', before.authors, after.authors);
    compare('description', before.description, after.description);
    compare('language', before.language, after.language);
    compare('publisher', before.publisher, after.publisher);
    compare('topics', before.topics.map((t) => t.name), after.topics.map((t) => t.name));
    compare('editors_pick', before.editors_pick, after.editors_pick);
    return { title: after, changed };
  }

  /** The editor's suggestions: names of the kind starting with `q` that a title in the catalog carries. */
  async names(q: AdminNamesQuery): Promise<AdminNames> {
    const key = nameKey(q.q ?? '');
    // words that fold to nothing (punctuation only) start no name
    if (q.q?.trim() && !key) return { results: [] };
    return { results: await this.repo.namesInUse(q.kind, key, q.limit ?? 10) };
  }

  /** 409 when already retired (the update's own condition decides: two at once, one passes). */
  async retire(bookId: string, committed?: Committed): Promise<AdminTitleDetail> {
    const title = await this.find(bookId);
    if (!(await this.repo.setRetired(title, this.now().toISOString()))) throw new AppError(409, M.alreadyRetired);
    committed?.(title);
    await this.forget(title.book_id, title.id);
    return this.detail(bookId);
  }

  async restore(bookId: string, committed?: Committed): Promise<AdminTitleDetail> {
    const title = await this.find(bookId);
    if (!(await this.repo.setRetired(title, null))) throw new AppError(409, M.notRetired);
    committed?.(title);
    await this.forget(title.book_id, title.id);
    return this.detail(bookId);
  }

  /** The title's readers, most minutes first, then by account (paged in SQL; offset cursor). */
  async readers(bookId: string, q: AdminPageQuery): Promise<AdminTitleReadersPage> {
    const title = await this.find(bookId);
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    let offset = 0;
    if (q.cursor !== undefined) {
      if (!/^[1-9][0-9]{0,8}$/.test(q.cursor)) throw fieldError('cursor', M.cursorShape);
      offset = Number(q.cursor);
    }
    // one more than the page tells whether another follows
    const rows = await this.repo.readersPage(title.id, offset, limit + 1);
    return {
      results: rows.slice(0, limit).map((f) => ({ user_id: f.uuid, email: f.email, minutes_read: round(f.minutes), completion: f.progress / 100, last_read_at: f.last_read_at })),
      next_cursor: rows.length > limit ? String(offset + limit) : null,
    };
  }

  private async find(bookId: string): Promise<TitleRow> {
    const title = await this.repo.findByBookId(bookId);
    if (!title) throw notFound(M.titleNotFound);
    return title;
  }

  private fieldsOf(title: TitleRow, n: TitleNames, picked: boolean) {
    return { ...rowOf(title, n, picked), description: title.description, topics: n.topics };
  }

  private async detailOf(title: TitleRow): Promise<AdminTitleDetail> {
    const [names, picked, chapters, totals] = await Promise.all([
      this.repo.namesOf([title.id]),
      this.repo.pickedIds([title.id]),
      this.repo.chapterCount(title.id),
      this.repo.readerTotals(title.id),
    ]);
    return {
      ...this.fieldsOf(title, names.get(title.id)!, picked.has(title.id)),
      allow_scripts: title.allow_scripts === 1,
      scripts_available: this.files?.scriptedOrigin ?? false,
      chapters,
      url: paths.titlePage(title.book_id),
      stats: {
        readers: totals.readers,
        minutes_read: round(totals.minutes),
        completed_readers: totals.completed,
        completion: round(totals.meanPercent / 100),
      },
    };
  }
}

/** Between the book id and a token in the name of an uploaded cover's folder. */
const COVER_FOLDER = '.cover-';

const round = (n: number) => Math.round(n * 100) / 100;

function rowOf(r: TitleRow, n: TitleNames, picked: boolean): AdminTitleRow {
  return {
    book_id: r.book_id,
    title: r.title,
    authors: n.authors,
    content_format: r.content_format as ContentFormat,
    language: r.language,
    publisher: n.publisher,
    created_at: r.created_at,
    retired_at: r.retired_at ?? null,
    editors_pick: picked,
    version: r.version,
    // the version in the address: a new cover is a new address (covers are cached for a day)
    cover_url: r.cover_path ? `${paths.cover(r.book_id)}?v=${r.version}` : null,
  };
}
