/** Operators mark chapters as samples or public (reader.md §6: as_sample, is_public). */
import { APP_MESSAGES, type ChapterFlags } from '@lectern/core';
import { notFound } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import { CatalogCache } from './catalog.ts';
import type { CatalogChanges } from './catalog-changes.ts';

export class ChapterFlagsService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly cache: CatalogCache,
    /** where the change is told to other server processes, which forget the title (null: one process alone) */
    private readonly changes: Pick<CatalogChanges, 'record'> | null = null,
  ) {}

  async set(bookId: string, fullPath: string, flags: ChapterFlags): Promise<{ as_sample: boolean; is_public: boolean }> {
    const title = await this.catalog.findTitleByBookId(bookId);
    if (!title) throw notFound(APP_MESSAGES.bookNotFound);
    const chapter = await this.catalog.findChapter(title.id, fullPath);
    if (!chapter) throw notFound(APP_MESSAGES.chapterNotFound);
    const as_sample = flags.as_sample ?? chapter.as_sample === 1;
    const is_public = flags.is_public ?? chapter.is_public === 1;
    await this.catalog.setChapterFlags(chapter.id, { as_sample: as_sample ? 1 : 0, is_public: is_public ? 1 : 0 });
    this.cache.chapters.delete(CatalogCache.chapterKey(bookId, fullPath));
    this.cache.mediaParts.delete(CatalogCache.chapterKey(bookId, fullPath));
    this.cache.entryChapters.delete(title.id); // a new sample moves where Start leads
    await this.changes?.record(bookId, title.id).catch(() => {});
    return { as_sample, is_public };
  }
}
