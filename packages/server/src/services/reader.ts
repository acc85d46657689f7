/**
 * What the reader asks the server (reader.md §7): the per-user decryption key, chapter blocks (encrypted for
 * signed-in readers, exactly as DESIGN.md "crypt64" fixes), the table of contents, usage events and per-chapter
 * progress. The encryption deters bulk copying; it is not DRM (the key reaches every signed-in browser).
 */
import { createHmac } from 'node:crypto';
import {
  type ArchiveItem,
  type BlockRequest,
  type ChapterItem,
  chapterChecksum,
  type ChapterContent,
  encryptChapter,
  LIMITS,
  MESSAGES,
  minutesForText,
  type Paged,
  paths,
  type TocItem,
  type TocResponse,
  validateUsageEvent,
} from '@lectern/core';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import { assertCanReadChapter } from '../policies/reading.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { NewUsageEvent, ProgressRepository } from '../repositories/progress.ts';
import type { CatalogService } from './catalog.ts';
import type { ContentResolver } from './content-resolver.ts';
import { renditionOf } from './rendition.ts';

type Reader = UserRow;

/** Standard padded base64 through Node's native encoder (the same text as core's base64Encode, ten times faster). */
const nodeBase64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * A chapter's checksum depends on its text alone, not on the reader: kept beside the cached chapter object (weakly,
 * so it goes when the catalog's cache drops the chapter) instead of hashed again for every reader.
 */
const checksums = new WeakMap<ChapterContent, string>();
function checksumOf(chapter: ChapterContent): string {
  let sum = checksums.get(chapter);
  if (sum === undefined) checksums.set(chapter, (sum = chapterChecksum(chapter.content)));
  return sum;
}

/** User keys by uuid: the key never changes, and an HMAC per chapter request showed in its profile. */
const USER_KEYS_KEPT = 10_000;

export class ReaderService {
  constructor(
    private readonly secret: string,
    private readonly catalog: CatalogRepository,
    private readonly catalogService: CatalogService,
    private readonly progress: ProgressRepository,
    private readonly resolver: ContentResolver,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private readonly userKeys = new Map<string, string>();

  /** The user's decryption key: derived from the server secret, so it needs no storage and never changes. */
  userKey(user: Pick<UserRow, 'uuid'> | null): { key: string } {
    if (!user) throw new AppError(401, MESSAGES.signInToRead);
    let key = this.userKeys.get(user.uuid);
    if (key === undefined) {
      key = createHmac('sha256', this.secret).update(`reader-key|${user.uuid}`).digest('hex').slice(0, 32);
      if (this.userKeys.size >= USER_KEYS_KEPT) this.userKeys.clear();
      this.userKeys.set(user.uuid, key);
    }
    return { key };
  }

  /**
   * One archive item per requested chapter. A chapter the caller may not read comes back with `error` and `url`
   * (where to sign in) instead of content, so the reader can say why and redirect.
   */
  async block(user: Reader | null, request: BlockRequest): Promise<ArchiveItem[]> {
    const title = await this.catalogService.requireTitle(request.book_id);
    const hrefs = Array.isArray(request.hrefs) ? request.hrefs : [request.hrefs];
    const items: ArchiveItem[] = [];
    for (const raw of hrefs) {
      // The query part of a chapter uri is dropped (reader.md §2).
      const href = raw.split(/[?#]/)[0]!;
      let found: Awaited<ReturnType<CatalogService['chapterOrResource']>>;
      try {
        found = await this.catalogService.chapterOrResource(title.book_id, href, user);
      } catch (err) {
        if (!(err instanceof AppError) || err.status === 404) throw err;
        items.push(this.refusal(title, href, err));
        continue;
      }
      if (found.kind !== 'chapter') throw badRequest(`${href} is not a chapter of this book.`, { hrefs: [`${href} is not a chapter of this book.`] });
      const c = found.chapter;
      const top = user ? await this.topPercentage(user.id, title.id, c.full_path) : 0;
      const chapterItem: ChapterItem = {
        uri: c.full_path,
        content: c.content,
        content_type: c.content_type,
        label: c.label,
        encoding: null,
        checksum: null,
        item_order: 0,
        as_sample: c.as_sample,
        is_public: c.is_public,
        stylesheets: c.stylesheets,
        allow_scripts: c.allow_scripts,
      };
      if (user && c.content_type !== 'application/pdf') {
        // Anonymous readers of samples have no key: they get the chapter as it is.
        const { content, checksum } = encryptChapter(c.content, this.userKey(user).key, title.book_id, c.full_path, {
          checksum: checksumOf(c),
          toBase64: nodeBase64,
        });
        chapterItem.content = content;
        chapterItem.checksum = checksum;
        chapterItem.encoding = 'crypt64';
      }
      items.push({
        ...archiveBase(title, href),
        chapter_label: c.label,
        rendition: c.rendition,
        as_sample: c.as_sample,
        is_public: c.is_public,
        next_chapter_uri: c.next_chapter_uri,
        previous_chapter_uri: c.previous_chapter_uri,
        top_percentage: top,
        media_overlay: c.media_overlay ?? null,
        root_attributes: c.root_attributes ?? null,
        resources: [chapterItem],
        error: null,
        url: c.file_url,
      });
    }
    return items;
  }

  /** A chapter the caller may not read: the reason, and where to go (sign in, or the title page). */
  private refusal(title: TitleRow, href: string, err: AppError): ArchiveItem {
    return {
      ...archiveBase(title, href),
      chapter_label: '',
      as_sample: false,
      is_public: false,
      next_chapter_uri: null,
      previous_chapter_uri: null,
      top_percentage: 0,
      resources: [],
      error: err.detail,
      url: err.status === 401 ? `/login/?next=${encodeURIComponent(paths.reader(title.title_safe, title.book_id, href))}` : paths.titlePage(title.book_id),
    };
  }

  private topPercentage(userId: number, titleId: number, fullPath: string): Promise<number> {
    return this.progress.chapterTop(userId, titleId, fullPath);
  }

  /** reader.md §3 "Table of contents data", with `chapterHref` marked selected. */
  async toc(bookId: string, chapterHref: string | null): Promise<TocResponse> {
    const title = await this.catalogService.requireTitle(bookId);
    const [chapters, toc, extras, navigation] = await Promise.all([
      this.catalog.chaptersOf(title.id),
      this.catalog.tocOf(title.id),
      this.catalog.extrasFor([title.id]),
      this.catalog.navigationOf(title.id),
    ]);
    const place = (t: { full_path: string; fragment: string | null }) => ({
      href: t.fragment ? `${t.full_path}#${t.fragment}` : t.full_path,
      url: paths.reader(title.title_safe, title.book_id, t.full_path) + (t.fragment ? `#${t.fragment}` : ''),
    });
    const minutesOf = new Map(chapters.map((c) => [c.full_path, minutesForText(c.text_length)]));
    const firstDepth = new Map<string, number>();
    for (const t of toc) if (!firstDepth.has(t.full_path)) firstDepth.set(t.full_path, t.depth);
    const selected = chapterHref ?? chapters[0]?.full_path ?? null;

    // Nest the flat entries by depth; a chapter's reading time goes on its first entry.
    const roots: TocItem[] = [];
    const stack: TocItem[] = [];
    const timed = new Set<string>();
    for (const t of toc) {
      const { href, url } = place(t);
      const item: TocItem = {
        href,
        uri: t.full_path,
        label: t.label,
        full_path: t.full_path,
        depth: t.depth,
        children: [],
        selected: t.full_path === selected && !timed.has(t.full_path),
        minutes_required: timed.has(t.full_path) ? 0 : (minutesOf.get(t.full_path) ?? 0),
        url,
      };
      timed.add(t.full_path);
      while (stack.length && stack[stack.length - 1]!.depth >= item.depth) stack.pop();
      if (stack.length) stack[stack.length - 1]!.children.push(item);
      else roots.push(item);
      stack.push(item);
    }
    const publisher = extras.publishers.get(title.id)?.[0] ?? null;
    // Each spine item's layout goes with the contents only when the book has fixed-layout pages (for its spreads).
    const renditions = chapters.map((c) => renditionOf(c));
    const fixed = renditions.some((r) => r?.layout === 'pre-paginated');
    return {
      book_id: title.book_id,
      title: title.title,
      title_safe: title.title_safe,
      authors: extras.authors.get(title.id) ?? [],
      publisher: publisher ? { ...publisher, logo: null } : null,
      pub_date: title.issued,
      detail_url: paths.titlePage(title.book_id),
      detail_position: 0,
      thumbnail_tag: title.cover_path ? paths.cover(title.book_id) : null,
      chapters: chapters.map((c, i) => ({
        label: c.label,
        depth: firstDepth.get(c.full_path) ?? 1,
        uri: c.full_path,
        selected: c.full_path === selected,
        minutes_required: minutesOf.get(c.full_path) ?? 0,
        url: paths.reader(title.title_safe, title.book_id, c.full_path),
        ...(fixed && renditions[i] ? { rendition: renditions[i] } : {}),
      })),
      items: roots,
      page_list: navigation.filter((n) => n.kind === 'page').map((n) => ({ label: n.label, ...place(n) })),
      landmarks: navigation.filter((n) => n.kind === 'landmark').map((n) => ({ type: n.landmark ?? '', label: n.label, ...place(n) })),
      ...(title.rendition_layout ? { rendition: renditionOf(title) } : {}),
    };
  }

  /**
   * Validates each event by reader.md §5 and keeps the valid ones; invalid events are dropped and reported.
   * Accepted uuids are acknowledged even when they were stored before (a retry), so the browser can forget them.
   */
  async recordUsage(user: UserRow, events: unknown[]) {
    if (events.length > LIMITS.maxEventsPerRequest) {
      const message = `At most ${LIMITS.maxEventsPerRequest} events per request.`;
      throw badRequest(message, { events: [message] });
    }
    const rejected: { index: number; usage_uuid: string | null; reason: string }[] = [];
    const valid: { index: number; event: NonNullable<Extract<ReturnType<typeof validateUsageEvent>, { ok: true }>['event']> }[] = [];
    events.forEach((raw, index) => {
      const v = validateUsageEvent(raw);
      if (v.ok) valid.push({ index, event: v.event });
      else rejected.push({ index, usage_uuid: uuidOf(raw), reason: v.reason });
    });
    const rows: NewUsageEvent[] = [];
    const received = this.now().toISOString();
    for (const { index, event } of valid) {
      // Only a real validation failure (the resolver's 400) rejects an event: a database error must fail the
      // request (a 5xx), so that the browser keeps the event and sends it again, instead of dropping it.
      const [resolved] = await this.resolver.resolve([event.chapter], 'chapter').catch((err: unknown) => {
        if (err instanceof AppError && err.status === 400) return [undefined];
        throw err;
      });
      if (!resolved?.chapter) {
        rejected.push({ index, usage_uuid: event.usage_uuid, reason: 'chapter is not a chapter of this library.' });
        continue;
      }
      // Progress is only recorded on what the account may read (an expired or cancelled account, or a trial past
      // its end, keeps the samples): the reading policy's own refusal is the reason.
      try {
        await this.catalogService.chapterOrResource(resolved.title.book_id, resolved.chapter.full_path, user);
      } catch (err) {
        if (!(err instanceof AppError) || (err.status !== 401 && err.status !== 403)) throw err;
        rejected.push({ index, usage_uuid: event.usage_uuid, reason: err.detail });
        continue;
      }
      rows.push({
        user_id: user.id,
        usage_uuid: event.usage_uuid,
        chapter_id: resolved.chapter.id,
        title_id: resolved.title.id,
        start_percentage: storedPercentage(event.start_percentage),
        end_percentage: storedPercentage(event.end_percentage),
        client_timestamp: new Date(typeof event.client_timestamp === 'number' ? event.client_timestamp : Date.parse(event.client_timestamp)).toISOString(),
        usage_is_complete: event.usage_is_complete ? 1 : 0,
        is_offline: event.is_offline ? 1 : 0,
        product: event.product ?? null,
        received_at: received,
      });
    }
    await this.progress.recordEvents(rows);
    return { accepted: rows.map((r) => r.usage_uuid), rejected: rejected.sort((a, b) => a.index - b.index) };
  }

  async chapterProgress(user: Pick<UserRow, 'id'>, bookId: string, page: number, pageSize: number, listUrl: string) {
    const title = await this.catalogService.requireTitle(bookId);
    const offset = (page - 1) * pageSize;
    const { count, rows } = await this.progress.chapterProgressPage(user.id, title.id, offset, pageSize);
    const link = (p: number) => `${listUrl}?page=${p}&page_size=${pageSize}`;
    const result: Paged<{ content: string; identifier: string; full_path: string; top_percentage: number }> = {
      count,
      next: offset + rows.length < count ? link(page + 1) : null,
      previous: page > 1 ? link(page - 1) : null,
      results: rows.map((r) => ({
        content: paths.chapterApi(title.book_id, r.full_path),
        identifier: title.book_id,
        full_path: r.full_path,
        top_percentage: Number(r.top_percentage),
      })),
    };
    return result;
  }
}

function archiveBase(title: TitleRow, href: string) {
  return {
    title: title.title,
    format: title.content_format,
    source: title.source,
    book_id: title.book_id,
    chapter_href: href,
    chapter: paths.chapterArchive(title.book_id, href),
    is_system_book: title.is_system_book === 1,
    allow_scripts: title.allow_scripts === 1,
    page_progression: title.page_progression === 'rtl' ? ('rtl' as const) : ('ltr' as const),
    language: title.language,
  };
}

/**
 * A percentage as stored: to 1/10,000 of a percent. PostgreSQL's `real` cannot hold what is smaller than about
 * 1e-38 (a valid 5e-324 from a client was a 500: "value out of range: underflow"), and no reader position is finer.
 */
function storedPercentage(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function uuidOf(raw: unknown): string | null {
  const v = (raw as { usage_uuid?: unknown } | null)?.usage_uuid;
  return typeof v === 'string' ? v.slice(0, 64) : null;
}
