/**
 * Content metadata and reading progress for lists of content addresses (library-playlists-account.md §3, §7):
 * POST /api/v1/metadata/ and POST /api/v1/user_progress/.
 */
import { type ContentMetadata, METADATA_FIELDS, paths } from '@lectern/core';
import type { TitleRow, UserRow } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { ProgressRepository } from '../repositories/progress.ts';
import { type CatalogCache, toMetadata } from './catalog.ts';
import type { ContentResolver, ResolvedContent } from './content-resolver.ts';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const EMPTY = Buffer.alloc(0);

export class MetadataService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly progressRepo: ProgressRepository,
    private readonly resolver: ContentResolver,
    private readonly cache: CatalogCache,
  ) {}

  /**
   * Metadata of each address in the order given, limited to `fields` (comma-separated) when given, as the JSON
   * bytes of the answer: entries are serialised once and cached, so the batches the web client repeats for every
   * playlist page cost string joins, not lookups and serialisation.
   */
  async metadataJson(urls: string[], fields: string | undefined): Promise<Buffer> {
    const wanted = parseFields(fields);
    const fieldsKey = wanted?.join(',') ?? '*';
    const parts: Buffer[] = new Array(urls.length);
    const misses: number[] = [];
    urls.forEach((url, i) => {
      const hit = this.cache.metadataJson.get(`${fieldsKey}\u0000${url}`);
      if (hit === undefined) misses.push(i);
      else parts[i] = hit;
    });
    if (misses.length) {
      const generation = this.cache.generation;
      const resolved = await this.resolver.resolve(misses.map((i) => urls[i]!), 'urls');
      await this.loadTitleMetadata(resolved.map((r) => r.title));
      // A title given a new edition meanwhile (CatalogCache.forgetTitle): answered this once, nothing of it kept.
      const keep = this.cache.generation === generation;
      resolved.forEach((r, k) => {
        const entry = Buffer.from(JSON.stringify(wanted ? pick(this.entryFor(r), wanted) : this.entryFor(r)));
        if (keep) this.cache.metadataJson.set(`${fieldsKey}\u0000${urls[misses[k]!]}`, entry);
        parts[misses[k]!] = entry;
      });
      if (!keep) for (const r of resolved) this.cache.metadata.delete(r.title.id);
    }
    // Joined as UTF-8 bytes: titles with non-Latin-1 characters make JS strings two-byte, and re-encoding the
    // whole answer on every write cost more than building it.
    const chunks: Buffer[] = [OPEN];
    parts.forEach((p, i) => chunks.push(i ? COMMA : EMPTY, p));
    chunks.push(CLOSE);
    return Buffer.concat(chunks);
  }

  /**
   * A title's content_format as the metadata answer gives it (a reader address's page names it: routes/web.ts);
   * null when there is no such title. Any failure is a null too: the page then holds no early chapter request and
   * the app asks, and reports, as before.
   */
  async contentFormat(bookId: string): Promise<string | null> {
    try {
      const answer = JSON.parse((await this.metadataJson([paths.bookApi(bookId)], 'content_format')).toString('utf8')) as { content_format?: unknown }[];
      const format = answer[0]?.content_format;
      return typeof format === 'string' ? format : null;
    } catch {
      return null;
    }
  }

  /**
   * The book's title and a chapter's label as the reader's toolbar shows them (a reader address's page writes them:
   * routes/web.ts withReaderHeading); null when the book or the chapter is not known, or anything fails: the page
   * then shows its plain skeleton, as before.
   */
  async readerHeading(bookId: string, href: string): Promise<{ title: string; chapter: string } | null> {
    try {
      const answer = JSON.parse((await this.metadataJson([paths.bookApi(bookId), paths.chapterApi(bookId, href)], 'title')).toString('utf8')) as { title?: unknown }[];
      const [title, chapter] = [answer[0]?.title, answer[1]?.title];
      return typeof title === 'string' && typeof chapter === 'string' ? { title, chapter } : null;
    } catch {
      return null;
    }
  }

  /**
   * The text length of a book's chapter (its rendered text, which its markup can only exceed); null when the book or
   * the chapter is not known, or anything fails. A reader address's page says whether its chapter is long from it
   * (routes/web.ts bootData).
   */
  async chapterTextLength(bookId: string, href: string): Promise<number | null> {
    try {
      const [r] = await this.resolver.resolve([paths.chapterApi(bookId, href)], 'urls');
      const chapter = r?.chapter;
      if (!r || !chapter) return null;
      const lengths = await this.catalog.chapterLengths([r.title.id]);
      return lengths.get(r.title.id)?.find((c) => c.id === chapter.id)?.text_length ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Each address's cover as the metadata answer gives it, for the page to name the first card's cover (routes/web.ts,
   * core's firstScreenImages). Any failure is an empty list: the page then names no cover, and the card asks as before.
   */
  async covers(urls: string[]): Promise<{ api_url?: unknown; cover_image_url?: unknown }[]> {
    if (!urls.length) return [];
    try {
      return JSON.parse((await this.metadataJson(urls, 'api_url,cover_image_url')).toString('utf8')) as { api_url?: unknown; cover_image_url?: unknown }[];
    } catch {
      return [];
    }
  }

  private async loadTitleMetadata(titles: TitleRow[]): Promise<void> {
    const missing = [...new Map(titles.filter((t) => !this.cache.metadata.get(t.id)).map((t) => [t.id, t])).values()];
    if (!missing.length) return;
    const extras = await this.catalog.extrasFor(missing.map((t) => t.id));
    for (const t of missing) this.cache.metadata.set(t.id, toMetadata(t, extras));
  }

  /** A chapter address describes the chapter: its label, 'chapter' format and reader address. */
  private entryFor(r: ResolvedContent): ContentMetadata {
    const title = this.cache.metadata.get(r.title.id)!;
    if (!r.chapter) return title;
    return {
      ...title,
      api_url: r.apiUrl,
      title: r.chapter.label,
      content_format: 'chapter',
      continue_url: paths.reader(r.title.title_safe, r.title.book_id, r.chapter.full_path),
    };
  }

  /**
   * §7 POST /api/v1/user_progress/ ("query fields=api_url,progress"): each address's progress, limited to `fields`
   * when given (api_url always kept, as the metadata call does); another field is a 400 naming `fields`.
   */
  async progress(user: Pick<UserRow, 'id'>, urls: string[], fields?: string): Promise<{ api_url: string; progress?: number }[]> {
    const wanted = parseFields(fields, PROGRESS_FIELDS);
    const resolved = await this.resolver.resolve(urls, 'urls');
    const [byTitle, byChapter] = await Promise.all([
      this.progressRepo.titleProgress(user.id, [...new Set(resolved.filter((r) => !r.chapter).map((r) => r.title.id))]),
      this.progressRepo.chapterProgress(user.id, resolved.flatMap((r) => (r.chapter ? [r.chapter.id] : []))),
    ]);
    const withProgress = !wanted || wanted.includes('progress');
    return resolved.map((r) =>
      withProgress ? { api_url: r.apiUrl, progress: (r.chapter ? byChapter.get(r.chapter.id) : byTitle.get(r.title.id)) ?? 0 } : { api_url: r.apiUrl },
    );
  }
}

/** The fields user_progress answers with. */
const PROGRESS_FIELDS = ['api_url', 'progress'] as const;

function parseFields(fields: string | undefined, known: readonly string[] = METADATA_FIELDS): string[] | null {
  if (!fields) return null;
  const list = fields.split(',').map((f) => f.trim()).filter(Boolean);
  const unknown = list.filter((f) => !known.includes(f));
  if (unknown.length) {
    const message = `Unknown field(s): ${unknown.join(', ')}. Known: ${known.join(', ')}.`;
    throw badRequest(message, { fields: [message] });
  }
  return list.includes('api_url') ? list : ['api_url', ...list];
}

function pick(meta: ContentMetadata, fields: string[]): Partial<ContentMetadata> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = meta[f as keyof ContentMetadata];
  return out;
}
