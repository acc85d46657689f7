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
  chapterPlaintext,
  chapterKeyBytes,
  deriveChapterKey,
  isMediaFormat,
  LIMITS,
  MESSAGES,
  minutesForText,
  type Paged,
  paths,
  playedPercentage,
  type TocItem,
  type TocResponse,
  validateUsageEvent,
} from '@lectern/core';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { AppError, badRequest } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { NewUsageEvent, ProgressRepository } from '../repositories/progress.ts';
import { type CatalogService, minutesForDuration } from './catalog.ts';
import type { ContentResolver } from './content-resolver.ts';
import { encryptWords } from '../util/block-coder.ts';
import { renditionOf } from './rendition.ts';

export type Reader = UserRow;

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

/**
 * The same for the chapter's plaintext as the cipher takes it (its UTF-8 bytes as words): made once per cached
 * chapter and encrypted for each reader (a copy into the block coder's memory), instead of UTF-8-encoding the chapter for
 * every request. It weighs about the chapter's UTF-8 size, which the catalog cache's estimate (two bytes a
 * character) already covers for the text of most books.
 */
const plaintexts = new WeakMap<ChapterContent, Uint32Array>();
function plaintextOf(chapter: ChapterContent): Uint32Array {
  let words = plaintexts.get(chapter);
  if (words === undefined) plaintexts.set(chapter, (words = chapterPlaintext(chapter.content)));
  return words;
}

/**
 * A part's encryption, made when the answer is written. Returned from here, not named in the service's method: tsx
 * (esbuild's keepNames) wraps every named function expression in a `__name` call, paid at each request.
 */
function cipherOf(plaintext: Uint32Array, userKey: string, bookId: string, uri: string): () => Uint8Array {
  return () => encryptWords(plaintext, chapterKeyBytes(deriveChapterKey(userKey, bookId, uri)));
}

/** The requested chapters' paths, the query part of each dropped (reader.md §2). */
function hrefsOf(request: BlockRequest): string[] {
  const hrefs = Array.isArray(request.hrefs) ? request.hrefs : [request.hrefs];
  return hrefs.map((raw) => {
    const cut = raw.search(/[?#]/);
    return cut < 0 ? raw : raw.slice(0, cut);
  });
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
    return (await this.blockParts(user, request)).map(archiveItemOf);
  }

  /**
   * The block answer's items as parts: what every reader of the chapter gets alike (one object per cached
   * chapter, shared by every request: never changed) and the reader's own parts (position, content, checksum).
   * The route serialises the shared part once per chapter (routes/reader.ts); `block` assembles whole items.
   */
  blockParts(user: Reader | null, request: BlockRequest): BlockPart[] | Promise<BlockPart[]> {
    // The usual case, everything cached and the position read at once (SQLite), is answered without a promise:
    // each await is a turn of the microtask queue on the reader's hottest request.
    const title = this.catalogService.cachedTitle(request.book_id);
    if (title === undefined) return this.blockPartsLoading(user, request);
    const hrefs = hrefsOf(request);
    const chapters: ChapterContent[] = [];
    for (const href of hrefs) {
      const c = this.catalogService.cachedChapter(title.book_id, href, user);
      // not cached, or not the caller's to read in full: the loading path says which
      if (c === undefined) return this.blockPartsLoading(user, request);
      chapters.push(c);
    }
    return this.partsOf(user, title, hrefs, chapters);
  }

  /** blockParts where a title or chapter is to be loaded (or refused) first; the parts are then made as there. */
  private async blockPartsLoading(user: Reader | null, request: BlockRequest): Promise<BlockPart[]> {
    const title = this.catalogService.cachedTitle(request.book_id) ?? (await this.catalogService.requireTitle(request.book_id));
    const hrefs = hrefsOf(request);
    const chapters: (ChapterContent | BlockPart)[] = [];
    for (const href of hrefs) {
      const c = this.catalogService.cachedChapter(title.book_id, href, user);
      if (c !== undefined) {
        chapters.push(c);
        continue;
      }
      let found: Awaited<ReturnType<CatalogService['chapterOrResource']>>;
      try {
        found = await this.catalogService.chapterOrResource(title.book_id, href, user);
      } catch (err) {
        if (!(err instanceof AppError) || err.status === 404) throw err;
        chapters.push({ shared: this.refusal(title, href, err), top: 0, cipher: null, checksum: null });
        continue;
      }
      if (found.kind !== 'chapter') throw badRequest(`${href} is not a chapter of this book.`, { hrefs: [`${href} is not a chapter of this book.`] });
      chapters.push(found.chapter);
    }
    return this.partsOf(user, title, hrefs, chapters);
  }

  /**
   * The parts of the requested chapters (a refusal is its part already), each at this reader's furthest position.
   * Without a promise when every position is read at once (SQLite): each await is a turn of the microtask queue.
   */
  private partsOf(user: Reader | null, title: TitleRow, hrefs: string[], chapters: readonly (ChapterContent | BlockPart)[]): BlockPart[] | Promise<BlockPart[]> {
    const tops = chapters.map((c) => (user && !('shared' in c) ? this.progress.chapterTop(user.id, title.id, c.full_path) : 0));
    if (tops.every((top) => typeof top === 'number')) return this.partsAt(user, title, hrefs, chapters, tops);
    // eslint-disable-next-line @typescript-eslint/await-thenable -- numbers beside promises on purpose (PostgreSQL's reads)
    return Promise.all(tops).then((read) => this.partsAt(user, title, hrefs, chapters, read));
  }

  private partsAt(user: Reader | null, title: TitleRow, hrefs: string[], chapters: readonly (ChapterContent | BlockPart)[], tops: number[]): BlockPart[] {
    return chapters.map((c, i) => ('shared' in c ? c : this.partOf(user, title, hrefs[i]!, c, tops[i]!)));
  }

  /** One chapter's part of the block answer, for this reader at their furthest position `top`. */
  private partOf(user: Reader | null, title: TitleRow, href: string, c: ChapterContent, top: number): BlockPart {
    // Anonymous readers of samples have no key: they get the chapter as it is.
    const encrypted = user !== null && c.content_type !== 'application/pdf';
    const shared = sharedItemOf(title, c, href, encrypted);
    // the chapter as it is, in the shared item
    if (!encrypted) return { shared, top, cipher: null, checksum: null };
    const plaintext = plaintextOf(c);
    const userKey = this.userKey(user).key;
    const bookId = title.book_id;
    const uri = c.full_path;
    // Encrypted when the answer is written, not here: the ciphertext is made in the block coder's memory, where
    // the compressed answer is coded from it (util/block-coder.ts), with no base64 string or body on the way.
    return { shared, top, cipher: cipherOf(plaintext, userKey, bookId, uri), checksum: checksumOf(c) };
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

  /** reader.md §3 "Table of contents data", with `chapterHref` marked selected. */
  async toc(bookId: string, chapterHref: string | null): Promise<TocResponse> {
    const title = await this.catalogService.requireTitle(bookId);
    const [chapters, toc, extras, navigation, durations] = await Promise.all([
      this.catalog.chaptersOf(title.id),
      this.catalog.tocOf(title.id),
      this.catalog.extrasFor([title.id]),
      this.catalog.navigationOf(title.id),
      this.catalogService.durationsOf(title),
    ]);
    const place = (t: { full_path: string; fragment: string | null }) => ({
      href: t.fragment ? `${t.full_path}#${t.fragment}` : t.full_path,
      url: paths.reader(title.title_safe, title.book_id, t.full_path) + (t.fragment ? `#${t.fragment}` : ''),
    });
    // a media part's minutes are its length (the contents panel shows it), not its transcript's reading time
    const minutesOf = new Map(
      chapters.map((c) => {
        const ms = durations.get(c.full_path);
        return [c.full_path, ms === undefined ? minutesForText(c.text_length) : minutesForDuration(ms)];
      }),
    );
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
        ...(durations.has(c.full_path) ? { duration_ms: durations.get(c.full_path)! } : {}),
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
    const playedChapters = new Set<number>();
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
      // A video's or audiobook's part is played, whatever product the event names: the video rules apply
      // (reader.md §5: start < end, span at most 50), and its progress is the share played (below).
      const media = isMediaFormat(resolved.title.content_format);
      if (media) {
        const v = validateUsageEvent(event, { isVideo: true });
        if (!v.ok) {
          rejected.push({ index, usage_uuid: event.usage_uuid, reason: v.reason });
          continue;
        }
        playedChapters.add(resolved.chapter.id);
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
    // A media part's progress is the union of the spans played, so a stretch replayed counts once (core's
    // playedPercentage); a book chapter's is the furthest position reached.
    await this.progress.recordEvents(rows, { playedChapters, played: playedPercentage });
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
 * A block item as the service hands it to the route: `shared` is the whole item as every reader of the chapter
 * gets it, with `top_percentage` 0 and, in its one resource, the chapter's own content and a null checksum; `top`,
 * `content` and `checksum` are this reader's, in their places (`archiveItemOf`). A refusal's item is all shared.
 */
export interface BlockPart {
  shared: ArchiveItem;
  top: number;
  /**
   * this reader's crypt64 ciphertext, made when called (its content is the standard base64 of these bytes), a view
   * of the block coder's memory that the next encryption or coding reuses: use the bytes before either; null where the shared item's content
   * stands (a plain chapter, a refusal)
   */
  cipher: (() => Uint8Array) | null;
  /** this reader's checksum; null where the shared item's stands */
  checksum: string | null;
}

/** A part's crypt64 content, as text (the block answer writes it from the bytes, routes/reader.ts). */
export function contentOf(part: BlockPart): string | null {
  return part.cipher ? nodeBase64(part.cipher()) : null;
}

/** The whole item of a part, as the reader gets it. */
export function archiveItemOf(part: BlockPart): ArchiveItem {
  const [resource] = part.shared.resources;
  if (!resource) return part.shared;
  return { ...part.shared, top_percentage: part.top, resources: [{ ...resource, content: contentOf(part) ?? resource.content, checksum: part.checksum ?? resource.checksum }] };
}

/**
 * The shared part of a chapter's item, made once per cached chapter object (for the title and href it was asked
 * with, encrypted or not) and kept weakly beside it: it goes when the catalog's cache drops the chapter, and a
 * changed title (a new cached object) makes it again.
 */
const sharedItems = new WeakMap<ChapterContent, { title: TitleRow; href: string; encrypted: boolean; item: ArchiveItem }[]>();
const SHARED_ITEMS_KEPT = 4;
function sharedItemOf(title: TitleRow, c: ChapterContent, href: string, encrypted: boolean): ArchiveItem {
  let kept = sharedItems.get(c);
  if (kept === undefined) sharedItems.set(c, (kept = []));
  for (const k of kept) if (k.title === title && k.href === href && k.encrypted === encrypted) return k.item;
  const chapterItem: ChapterItem = {
    uri: c.full_path,
    content: c.content,
    content_type: c.content_type,
    label: c.label,
    encoding: encrypted ? 'crypt64' : null,
    checksum: null,
    item_order: 0,
    as_sample: c.as_sample,
    is_public: c.is_public,
    stylesheets: c.stylesheets,
    allow_scripts: c.allow_scripts,
  };
  const item: ArchiveItem = {
    ...archiveBase(title, href),
    chapter_label: c.label,
    rendition: c.rendition,
    as_sample: c.as_sample,
    is_public: c.is_public,
    next_chapter_uri: c.next_chapter_uri,
    previous_chapter_uri: c.previous_chapter_uri,
    top_percentage: 0,
    media_overlay: c.media_overlay ?? null,
    root_attributes: c.root_attributes ?? null,
    ...(c.markup_recovered ? { markup_recovered: true } : {}),
    ...(c.media ? { media: c.media } : {}),
    resources: [chapterItem],
    error: null,
    url: c.file_url,
  };
  if (kept.length >= SHARED_ITEMS_KEPT) kept.shift();
  kept.push({ title, href, encrypted, item });
  return item;
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
