/**
 * The annotation store (docs/decisions.md "Annotations"): the Annotator store protocol's create, read, update, delete,
 * search and index under a chapter's (or a book's) prefix, the auth token, the fragment sanitiser and a reader's
 * export.
 *
 * Rules, in one place each:
 * - who may do what to an annotation is core's `permits` (reader.md §6); read/update/delete answer 404 for a note
 *   the caller may not read, then 401 (anonymous) or 403 (signed in) for an action they may not take; search and
 *   index never refuse, they leave out what the caller may not read;
 * - a note quotes its chapter, so others' notes are shown only on chapters the caller may read (samples and public
 *   chapters for everyone; every chapter for a live subscription); one's own notes are always one's own, also
 *   after a subscription lapses (read, edit, delete, export); creating needs a chapter the caller may read;
 * - changing permissions (or is_public, which is the read list's world group) needs the `admin` action;
 * - the store trusts nothing it is sent: the author and consumer come from the token, the fragment is sanitised
 *   here, the note's markdown is kept as written and rendered (and sanitised) by the client.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  ANNOTATION_GROUPS,
  ANNOTATION_LIMITS,
  ANNOTATION_MESSAGES,
  ANNOTATION_TYPE_NOTE,
  ANNOTATION_TYPE_PREVIEW,
  APP_MESSAGES,
  type Annotation,
  type AnnotationAction,
  type AnnotationExport,
  type AnnotationInput,
  type AnnotationPermissions,
  type AnnotationPrincipal,
  type AnnotationSearchQuery,
  type AnnotationSearchResponse,
  type AnnotationSelector,
  CONSUMER_KEY,
  defaultPermissions,
  type ExportFormat,
  filterWords,
  isPublicPermissions,
  paths,
  pdfPageOf,
  permits,
  truncateQuote,
} from '@lectern/core';
import type { AnnotationRow, TitleRow, UserRow } from '../db/schema.ts';
import { AppError, fieldError, notFound } from '../errors.ts';
import { assertPreviewRole, isAdmin } from '../policies/admin.ts';
import { assertCanReadChapter, hasLiveSubscription } from '../policies/reading.ts';
import type { AnnotationChanges, AnnotationsRepository, Visibility } from '../repositories/annotations.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { SessionsRepository } from '../repositories/sessions.ts';
import type { AnnotationTokens } from './annotation-tokens.ts';
import type { SignedIn } from './auth.ts';
import type { CatalogService } from './catalog.ts';

/** A caller proven by a token: the account and what the permission rule needs of it. */
export interface AnnotationCaller {
  user: UserRow;
  principal: AnnotationPrincipal;
}

/** Where a store call was made: the book, and the chapter unless the prefix is the book's. */
export interface StoreScope {
  bookId: string;
  chapterHref: string | null;
}

export const TOKEN_INVALID = 'The annotation token is not valid or has expired.';

export class AnnotationsService {
  constructor(
    private readonly tokens: AnnotationTokens,
    private readonly annotations: AnnotationsRepository,
    private readonly catalogService: Pick<CatalogService, 'requireTitle'>,
    private readonly catalog: Pick<CatalogRepository, 'findChapter' | 'chaptersOf'>,
    private readonly sessions: Pick<SessionsRepository, 'findLiveByPublicId'>,
    private readonly now: () => Date = () => new Date(),
    /** HIGHLIGHT_PRIVACY=private-only (reader.md §4, forced private): no note is readable by the world group */
    private readonly options: { forcePrivate?: boolean } = {},
  ) {}

  /** The permissions as the library allows them: forced private takes the world group out of `read`. */
  private privacy(p: AnnotationPermissions): AnnotationPermissions {
    return this.options.forcePrivate ? { ...p, read: p.read.filter((g) => g !== ANNOTATION_GROUPS.world) } : p;
  }

  // ---- the token ----

  issueToken(signedIn: SignedIn): string {
    return this.tokens.issue(signedIn.user.uuid, signedIn.session.public_id);
  }

  /**
   * Who a store call comes from. No token: anonymous (null). A token that is malformed, forged, expired, or whose
   * session has ended: 401, so the client knows to fetch a new one (as the Annotator store answers).
   */
  async identify(token: string | undefined): Promise<AnnotationCaller | null> {
    if (token === undefined || token === '') return null;
    const identity = this.tokens.verify(token);
    const found = identity ? await this.sessions.findLiveByPublicId(identity.sessionPublicId, this.now().toISOString()) : undefined;
    if (!identity || !found || found.user.uuid !== identity.userId) throw new AppError(401, TOKEN_INVALID);
    return { user: found.user, principal: { userId: found.user.uuid, consumerKey: CONSUMER_KEY, isAdmin: isAdmin(found.user) } };
  }

  // ---- the store ----

  async create(caller: AnnotationCaller | null, scope: StoreScope, input: AnnotationInput): Promise<Annotation> {
    if (!caller) throw new AppError(401, ANNOTATION_MESSAGES.signInToAnnotate);
    const title = await this.catalogService.requireTitle(scope.bookId);
    if (scope.chapterHref === null) throw fieldError('chapter_href', ANNOTATION_MESSAGES.chapterNeeded);
    const chapter = await this.catalog.findChapter(title.id, scope.chapterHref);
    if (!chapter) throw notFound(APP_MESSAGES.chapterNotFound);
    assertCanReadChapter(caller.user, chapter, this.now());
    const type = annotationType(input);
    if (type === ANNOTATION_TYPE_PREVIEW) this.assertPreviewCreator(caller);

    const permissions = this.privacy(applyPermissions(defaultPermissions(), input, caller.principal.userId));
    const quote = input.quote ?? '';
    const fragment = input.fragment ?? '';
    const at = this.now().toISOString();
    const row: AnnotationRow = {
      id: randomUUID(),
      title_id: title.id,
      chapter_href: chapter.full_path,
      user_id: caller.user.id,
      user_uuid: caller.principal.userId,
      consumer: caller.principal.consumerKey,
      uri: input.uri ?? paths.reader(title.title_safe, title.book_id, chapter.full_path),
      quote,
      text: input.text ?? '',
      tags: JSON.stringify(input.tags ?? []),
      ranges: JSON.stringify(input.ranges ?? []),
      selectors: JSON.stringify(selectorsFor(input.selectors, quote)),
      fragment,
      sanitized_fragment: await sanitize(fragment),
      highlights: JSON.stringify(normaliseHighlights(input.highlights)),
      ...permissionColumns(permissions),
      annotation_type: String(type),
      text_lc: (input.text ?? '').toLowerCase(),
      quote_lc: quote.toLowerCase(),
      tags_lc: (input.tags ?? []).join(' ').toLowerCase(),
      created_at: at,
      updated_at: at,
    };
    // The same annotation sent twice at once (a double click, a retried request) is one annotation: its id is
    // derived from what it says, so the second insert meets the first and answers it (docs/decisions.md
    // "Annotations: one for the same request sent twice"). If that id's row has since been edited, this one is new.
    const once = { ...row, id: contentId(row) };
    if (await this.annotations.insertOnce(once)) return toWire(once, title);
    const existing = await this.annotations.find(once.id);
    if (existing && sameContent(existing, once)) return toWire(existing, title);
    await this.annotations.insert(row);
    return toWire(row, title);
  }

  async read(caller: AnnotationCaller | null, scope: StoreScope, id: string): Promise<Annotation> {
    const { row, title } = await this.visible(caller, scope, id);
    return toWire(row, title);
  }

  async update(caller: AnnotationCaller | null, scope: StoreScope, id: string, input: AnnotationInput): Promise<Annotation> {
    const { row, title } = await this.visible(caller, scope, id);
    const current = permissionsOf(row);
    this.assertAllowed(row, current, 'update', caller);
    const next = this.privacy(applyPermissions(current, input, row.user_uuid));
    if (!samePermissions(current, next)) this.assertAllowed(row, current, 'admin', caller);
    const type = input.annotation_type !== undefined || input.preview_annotation != null ? annotationType(input) : null;
    if (type === ANNOTATION_TYPE_PREVIEW && row.annotation_type !== ANNOTATION_TYPE_PREVIEW) this.assertPreviewCreator(caller);

    const changes: AnnotationChanges = { ...permissionColumns(next), updated_at: this.now().toISOString() };
    if (input.quote !== undefined) Object.assign(changes, { quote: input.quote, quote_lc: input.quote.toLowerCase() });
    if (input.text !== undefined) Object.assign(changes, { text: input.text ?? '', text_lc: (input.text ?? '').toLowerCase() });
    if (input.tags !== undefined) Object.assign(changes, { tags: JSON.stringify(input.tags), tags_lc: input.tags.join(' ').toLowerCase() });
    if (input.ranges !== undefined) changes.ranges = JSON.stringify(input.ranges);
    if (input.selectors !== undefined) changes.selectors = JSON.stringify(input.selectors);
    if (input.uri !== undefined) changes.uri = input.uri;
    if (input.fragment !== undefined) Object.assign(changes, { fragment: input.fragment ?? '', sanitized_fragment: await sanitize(input.fragment ?? '') });
    if (input.highlights !== undefined) changes.highlights = JSON.stringify(normaliseHighlights(input.highlights));
    if (type !== null) changes.annotation_type = String(type);
    await this.annotations.update(row.id, changes);
    return toWire({ ...row, ...changes }, title);
  }

  async remove(caller: AnnotationCaller | null, scope: StoreScope, id: string): Promise<void> {
    const { row } = await this.visible(caller, scope, id);
    this.assertAllowed(row, permissionsOf(row), 'delete', caller);
    await this.annotations.delete(row.id);
  }

  async search(caller: AnnotationCaller | null, scope: StoreScope, q: AnnotationSearchQuery): Promise<AnnotationSearchResponse> {
    const title = await this.catalogService.requireTitle(scope.bookId);
    const words = (value: string | undefined) => (value === undefined ? undefined : filterWords(value));
    const { total, rows } = await this.annotations.search(
      {
        titleId: title.id,
        chapterHref: scope.chapterHref,
        uri: q.uri,
        userUuid: q.user,
        textWords: words(q.text),
        quoteWords: words(q.quote),
        tagWords: words(q.tags),
      },
      this.visibility(caller),
      q.limit,
      q.offset,
    );
    return { total, rows: rows.map((r) => toWire(r, title)) };
  }

  async index(caller: AnnotationCaller | null, scope: StoreScope): Promise<Annotation[]> {
    const title = await this.catalogService.requireTitle(scope.bookId);
    const rows = await this.annotations.index({ titleId: title.id, chapterHref: scope.chapterHref }, this.visibility(caller), ANNOTATION_LIMITS.indexMax);
    return rows.map((r) => toWire(r, title));
  }

  /** POST /a/sanitize-fragment/: the annotations' allow-list, images from other sites dropped. */
  sanitizeFragment(fragment: string): Promise<string> {
    return sanitize(fragment);
  }

  // ---- export ----

  /** The reader's own annotations of a book (kept and exported whatever their subscription), by chapter. */
  async exportData(user: UserRow, bookId: string): Promise<AnnotationExport> {
    const title = await this.catalogService.requireTitle(bookId);
    const [rows, chapters] = await Promise.all([this.annotations.ofUserInTitle(user.id, title.id), this.catalog.chaptersOf(title.id)]);
    const byChapter = new Map<string, AnnotationRow[]>();
    for (const r of rows) (byChapter.get(r.chapter_href) ?? byChapter.set(r.chapter_href, []).get(r.chapter_href)!).push(r);
    const out: AnnotationExport['chapters'] = [];
    for (const c of chapters) {
      const list = byChapter.get(c.full_path);
      if (!list) continue;
      byChapter.delete(c.full_path);
      out.push({ chapter_href: c.full_path, label: c.label, in_book: true, annotations: list.map((r) => toWire(r, title)) });
    }
    // What is left: chapters a re-import removed. Kept, listed last, named by their path.
    for (const [href, list] of byChapter) out.push({ chapter_href: href, label: href, in_book: false, annotations: list.map((r) => toWire(r, title)) });
    return { book_id: title.book_id, title: title.title, exported_at: this.now().toISOString(), chapters: out };
  }

  async export(user: UserRow, bookId: string, format: ExportFormat): Promise<{ filename: string; contentType: string; body: string }> {
    const data = await this.exportData(user, bookId);
    const base = `${data.book_id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80) || 'book'}-notes`;
    if (format === 'json') return { filename: `${base}.json`, contentType: 'application/json; charset=utf-8', body: JSON.stringify(data, null, 2) };
    return { filename: `${base}.md`, contentType: 'text/markdown; charset=utf-8', body: toMarkdown(data) };
  }

  // ---- helpers ----

  /** The annotation, when it exists in this scope and the caller may read it; else 404 (whether or not it exists). */
  private async visible(caller: AnnotationCaller | null, scope: StoreScope, id: string): Promise<{ row: AnnotationRow; title: TitleRow }> {
    const title = await this.catalogService.requireTitle(scope.bookId);
    const row = id.length <= 64 ? await this.annotations.find(id) : undefined;
    const inScope = row && row.title_id === title.id && (scope.chapterHref === null || scope.chapterHref === row.chapter_href);
    if (!row || !inScope || !permits(wireOwner(row), 'read', caller?.principal ?? null)) throw notFound(ANNOTATION_MESSAGES.notFound);
    const own = caller !== null && caller.user.id === row.user_id && caller.principal.consumerKey === row.consumer;
    if (!own && !this.hasLiveSubscription(caller)) {
      const chapter = await this.catalog.findChapter(title.id, row.chapter_href);
      if (!chapter || !(chapter.as_sample || chapter.is_public)) throw notFound(ANNOTATION_MESSAGES.notFound);
    }
    return { row, title };
  }

  private assertAllowed(row: AnnotationRow, permissions: AnnotationPermissions, action: AnnotationAction, caller: AnnotationCaller | null): void {
    if (permits({ user: row.user_uuid, consumer: row.consumer, permissions }, action, caller?.principal ?? null)) return;
    throw new AppError(caller ? 403 : 401, ANNOTATION_MESSAGES.denied(action));
  }

  private assertPreviewCreator(caller: AnnotationCaller | null): void {
    assertPreviewRole(caller?.user ?? null, ANNOTATION_MESSAGES.previewOnly);
  }

  private hasLiveSubscription(caller: AnnotationCaller | null): boolean {
    return caller !== null && hasLiveSubscription(caller.user, this.now());
  }

  private visibility(caller: AnnotationCaller | null): Visibility {
    return {
      caller: caller && { id: caller.user.id, uuid: caller.principal.userId, consumer: caller.principal.consumerKey, isAdmin: caller.principal.isAdmin },
      openChaptersOnly: !this.hasLiveSubscription(caller),
    };
  }
}

// ---- row <-> wire ----

// The sanitiser (sanitize-html, postcss, parse5) is loaded when first needed: the command line never needs it.
const sanitize = async (fragment: string) => (fragment ? (await import('../ingest/render.ts')).sanitizeFragment(fragment, { remoteImages: false }) : '');

function parseList<T>(json: string): T[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

function permissionsOf(row: Pick<AnnotationRow, 'perm_read' | 'perm_update' | 'perm_delete' | 'perm_admin'>): AnnotationPermissions {
  return {
    read: parseList<string>(row.perm_read),
    update: parseList<string>(row.perm_update),
    delete: parseList<string>(row.perm_delete),
    admin: parseList<string>(row.perm_admin),
  };
}

const wireOwner = (row: AnnotationRow) => ({ user: row.user_uuid, consumer: row.consumer, permissions: permissionsOf(row) });

function permissionColumns(p: AnnotationPermissions) {
  return {
    perm_read: JSON.stringify(p.read),
    perm_update: JSON.stringify(p.update),
    perm_delete: JSON.stringify(p.delete),
    perm_admin: JSON.stringify(p.admin),
    read_world: p.read.includes(ANNOTATION_GROUPS.world) ? (1 as const) : (0 as const),
    read_authenticated: p.read.includes(ANNOTATION_GROUPS.authenticated) ? (1 as const) : (0 as const),
    read_consumer: p.read.includes(ANNOTATION_GROUPS.consumer) ? (1 as const) : (0 as const),
  };
}

/**
 * The permissions after a create or update: each list sent replaces the one before (null or left out: kept);
 * `is_public`, when sent without a read list, sets the read list to the world group or to the author alone.
 */
function applyPermissions(current: AnnotationPermissions, input: AnnotationInput, authorId: string): AnnotationPermissions {
  const next = { ...current };
  const sent = input.permissions ?? {};
  for (const action of ['read', 'update', 'delete', 'admin'] as const) {
    const list = sent[action];
    if (list != null) next[action] = [...new Set(list)];
  }
  if (input.is_public !== undefined && sent.read == null) next.read = input.is_public ? [ANNOTATION_GROUPS.world] : [authorId];
  return next;
}

const samePermissions = (a: AnnotationPermissions, b: AnnotationPermissions) => JSON.stringify(a) === JSON.stringify(b);

function annotationType(input: AnnotationInput) {
  return input.annotation_type === ANNOTATION_TYPE_PREVIEW || input.preview_annotation === true ? ANNOTATION_TYPE_PREVIEW : ANNOTATION_TYPE_NOTE;
}

/** The client's selectors, or, when it sent none, the quote as a TextQuoteSelector without context. */
function selectorsFor(sent: AnnotationSelector[] | undefined, quote: string): AnnotationSelector[] {
  if (sent && sent.length) return sent;
  return quote ? [{ type: 'TextQuoteSelector', exact: quote, prefix: '', suffix: '' }] : [];
}

function normaliseHighlights(list: unknown[] | null | undefined): string[] {
  const out: string[] = [];
  for (const item of list ?? []) {
    const text = typeof item === 'string' ? item : item && typeof item === 'object' && typeof (item as { content?: unknown }).content === 'string' ? (item as { content: string }).content : null;
    if (text !== null) out.push(text.slice(0, ANNOTATION_LIMITS.highlight));
  }
  return out;
}

/** What an annotation says and who said it: everything but its id and times. */
const CONTENT_COLUMNS = [
  'title_id', 'chapter_href', 'user_id', 'user_uuid', 'consumer', 'uri', 'quote', 'text', 'tags', 'ranges', 'selectors', 'fragment',
  'highlights', 'annotation_type', 'perm_read', 'perm_update', 'perm_delete', 'perm_admin',
] as const satisfies readonly (keyof AnnotationRow)[];

/** A UUID (version 8, RFC 9562's custom one) from the annotation's content. */
function contentId(row: AnnotationRow): string {
  const h = createHash('sha256').update(JSON.stringify(CONTENT_COLUMNS.map((c) => row[c]))).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sameContent(a: AnnotationRow, b: AnnotationRow): boolean {
  return CONTENT_COLUMNS.every((c) => String(a[c]) === String(b[c]));
}

export function toWire(row: AnnotationRow, title: Pick<TitleRow, 'title_safe' | 'book_id'>): Annotation {
  const permissions = permissionsOf(row);
  const isPublic = isPublicPermissions(permissions);
  const readerUrl = paths.reader(title.title_safe, title.book_id, row.chapter_href);
  const preview = row.annotation_type === ANNOTATION_TYPE_PREVIEW;
  return {
    id: row.id,
    quote: row.quote,
    ranges: parseList(row.ranges),
    selectors: parseList(row.selectors),
    text: row.text,
    tags: parseList(row.tags),
    uri: row.uri,
    user: row.user_uuid,
    consumer: row.consumer,
    permissions,
    created: row.created_at,
    updated: row.updated_at,
    links: [{ type: 'text/html', rel: 'alternate', href: readerUrl }],
    truncated_quote: truncateQuote(row.quote),
    fragment: row.fragment,
    sanitized_fragment: row.sanitized_fragment,
    highlights: parseList(row.highlights),
    is_public: isPublic,
    card_url: isPublic ? `${readerUrl}?annotation=${encodeURIComponent(row.id)}` : null,
    annotation_type: preview ? ANNOTATION_TYPE_PREVIEW : ANNOTATION_TYPE_NOTE,
    preview_annotation: preview,
    book_id: title.book_id,
    chapter_href: row.chapter_href,
  };
}

/** The Markdown export: a heading per chapter, each highlight as a block quote, then its note and tags. */
export function toMarkdown(data: AnnotationExport): string {
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
  const quoteBlock = (s: string) =>
    s
      .split(/\r?\n/)
      .map((line) => `> ${line}`.trimEnd())
      .join('\n');
  const count = data.chapters.reduce((n, c) => n + c.annotations.length, 0);
  const lines = [`# Notes on ${oneLine(data.title)}`, '', `${count} ${count === 1 ? 'annotation' : 'annotations'}, exported ${data.exported_at.slice(0, 10)}.`, ''];
  for (const chapter of data.chapters) {
    lines.push(`## ${oneLine(chapter.label) || chapter.chapter_href}${chapter.in_book ? '' : ' (no longer in the book)'}`, '');
    for (const a of chapter.annotations) {
      if (a.quote) lines.push(quoteBlock(a.quote), '');
      if (a.text) lines.push(a.text, '');
      const page = pdfPageOf(a);
      const meta = [...(page ? [`Page ${page}`] : []), a.is_public ? 'Public' : 'Private', a.created.slice(0, 10)];
      if (a.tags.length) meta.unshift(`Tags: ${a.tags.join(', ')}`);
      lines.push(`*${meta.join(' · ')}*`, '', '---', '');
    }
  }
  return lines.join('\n');
}
