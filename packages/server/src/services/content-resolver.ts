/**
 * Turns content addresses (api_urls of titles or chapters, in any of the accepted spellings) into catalog rows.
 * Anything that is not an address of this library fails the whole call with a 400 naming each bad address.
 */
import { CONTENT_MESSAGES, normalizeContentUri } from '@lectern/core';
import type { TitleRow } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import { CatalogCache } from './catalog.ts';

export interface ResolvedContent {
  apiUrl: string;
  title: TitleRow;
  chapter: { id: number; full_path: string; label: string } | null;
}

/** Lookups go through the catalog cache: a batch of known addresses costs no query at all. */
export class ContentResolver {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly cache: CatalogCache,
  ) {}

  private async titlesByBookId(bookIds: string[]): Promise<Map<string, TitleRow>> {
    const found = new Map<string, TitleRow>();
    const missing: string[] = [];
    for (const id of bookIds) {
      const hit = this.cache.titles.get(id);
      if (hit) found.set(id, hit);
      else missing.push(id);
    }
    const generation = this.cache.generation;
    for (const t of await this.catalog.findTitlesByBookIds(missing)) {
      // kept only when no new edition came in meanwhile (CatalogCache.forgetTitle)
      if (this.cache.generation === generation) this.cache.titles.set(t.book_id, t);
      found.set(t.book_id, t);
    }
    return found;
  }

  private async chapterRefs(wanted: { bookId: string; titleId: number; fullPath: string }[]) {
    const found = new Map<string, { id: number; title_id: number; full_path: string; label: string }>();
    const missing: typeof wanted = [];
    for (const w of wanted) {
      const key = CatalogCache.chapterKey(w.bookId, w.fullPath);
      const hit = this.cache.chapterRefs.get(key);
      if (hit) found.set(key, hit);
      else missing.push(w);
    }
    const bookIdOf = new Map(wanted.map((w) => [w.titleId, w.bookId]));
    const generation = this.cache.generation;
    for (const c of await this.catalog.findChapterIds(missing.map((m) => ({ titleId: m.titleId, fullPath: m.fullPath })))) {
      const key = CatalogCache.chapterKey(bookIdOf.get(c.title_id)!, c.full_path);
      if (this.cache.generation === generation) this.cache.chapterRefs.set(key, c);
      found.set(key, c);
    }
    return found;
  }

  /** One result per address, in the order given (duplicates included); any bad address fails the call. */
  async resolve(uris: readonly string[], field = 'content'): Promise<ResolvedContent[]> {
    const problems: string[] = [];
    const parsed = uris.map((uri) => {
      const n = normalizeContentUri(uri);
      if (!n) problems.push(CONTENT_MESSAGES.notAnAddress(uri));
      return n;
    });
    const valid = parsed.filter((n): n is NonNullable<typeof n> => n !== null);
    const titles = await this.titlesByBookId([...new Set(valid.map((n) => n.bookId))]);
    const chapterOf = await this.chapterRefs(
      valid.filter((n) => n.chapterPath !== null && titles.has(n.bookId)).map((n) => ({ bookId: n.bookId, titleId: titles.get(n.bookId)!.id, fullPath: n.chapterPath! })),
    );

    const resolved: ResolvedContent[] = [];
    for (const n of valid) {
      const title = titles.get(n.bookId);
      if (!title) {
        problems.push(CONTENT_MESSAGES.notInLibrary(n.apiUrl));
        continue;
      }
      let chapter: ResolvedContent['chapter'] = null;
      if (n.chapterPath !== null) {
        const found = chapterOf.get(CatalogCache.chapterKey(n.bookId, n.chapterPath));
        if (!found) {
          problems.push(CONTENT_MESSAGES.notAChapterOf(n.apiUrl, title.title));
          continue;
        }
        chapter = { id: found.id, full_path: found.full_path, label: found.label };
      }
      resolved.push({ apiUrl: n.apiUrl, title, chapter });
    }
    if (problems.length) throw badRequest(problems.join(' '), { [field]: problems });
    return resolved;
  }
}
