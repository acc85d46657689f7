/**
 * Content metadata and reading progress for lists of content addresses (library-playlists-account.md §3, §7):
 * POST /api/v1/metadata/ and POST /api/v1/user_progress/.
 */
import { type ContentMetadata, METADATA_FIELDS, paths } from '@lectern/core';
import type { UserRow } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { CollectionsRepository } from '../repositories/collections.ts';
import { type CatalogCache, toMetadata } from './catalog.ts';
import type { ContentResolver } from './content-resolver.ts';

const KNOWN_FIELDS = new Set<string>(METADATA_FIELDS);

export class MetadataService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly collections: CollectionsRepository,
    private readonly resolver: ContentResolver,
    private readonly cache: CatalogCache,
  ) {}

  /** Metadata of each address in the order given, limited to `fields` (comma-separated) when given. */
  async metadata(urls: string[], fields: string | undefined): Promise<Partial<ContentMetadata>[]> {
    const wanted = parseFields(fields);
    const resolved = await this.resolver.resolve(urls, 'urls');
    const missing = [...new Set(resolved.map((r) => r.title.id))].filter((id) => !this.cache.metadata.get(id));
    if (missing.length) {
      const extras = await this.catalog.extrasFor(missing);
      for (const r of resolved) if (missing.includes(r.title.id)) this.cache.metadata.set(r.title.id, toMetadata(r.title, extras));
    }
    return resolved.map((r) => {
      const title = this.cache.metadata.get(r.title.id)!;
      const full: ContentMetadata = r.chapter
        ? {
            ...title,
            api_url: r.apiUrl,
            title: r.chapter.label,
            content_format: 'chapter',
            continue_url: paths.reader(r.title.title_safe, r.title.book_id, r.chapter.full_path),
          }
        : title;
      return wanted ? pick(full, wanted) : full;
    });
  }

  async progress(user: Pick<UserRow, 'id'>, urls: string[]): Promise<{ api_url: string; progress: number }[]> {
    const resolved = await this.resolver.resolve(urls, 'urls');
    const [byTitle, byChapter] = await Promise.all([
      this.collections.titleProgress(user.id, [...new Set(resolved.filter((r) => !r.chapter).map((r) => r.title.id))]),
      this.collections.chapterProgress(user.id, resolved.flatMap((r) => (r.chapter ? [r.chapter.id] : []))),
    ]);
    return resolved.map((r) => ({ api_url: r.apiUrl, progress: (r.chapter ? byChapter.get(r.chapter.id) : byTitle.get(r.title.id)) ?? 0 }));
  }
}

function parseFields(fields: string | undefined): string[] | null {
  if (!fields) return null;
  const list = fields.split(',').map((f) => f.trim()).filter(Boolean);
  const unknown = list.filter((f) => !KNOWN_FIELDS.has(f));
  if (unknown.length) {
    const message = `Unknown field(s): ${unknown.join(', ')}. Known: ${METADATA_FIELDS.join(', ')}.`;
    throw badRequest(message, { fields: [message] });
  }
  return list.includes('api_url') ? list : ['api_url', ...list];
}

function pick(meta: ContentMetadata, fields: string[]): Partial<ContentMetadata> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = meta[f as keyof ContentMetadata];
  return out as Partial<ContentMetadata>;
}
