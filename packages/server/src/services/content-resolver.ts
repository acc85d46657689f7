/**
 * Turns content addresses (api_urls of titles or chapters, in any of the accepted spellings) into catalog rows.
 * Anything that is not an address of this library fails the whole call with a 400 naming each bad address.
 */
import { normalizeContentUri } from '@lectern/core';
import type { TitleRow } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';

export interface ResolvedContent {
  apiUrl: string;
  title: TitleRow;
  chapter: { id: number; full_path: string; label: string } | null;
}

export class ContentResolver {
  constructor(private readonly catalog: CatalogRepository) {}

  async resolve(uris: readonly string[], field = 'content'): Promise<ResolvedContent[]> {
    const problems: string[] = [];
    const parsed = uris.map((uri) => {
      const n = normalizeContentUri(uri);
      if (!n) problems.push(`"${uri}" is not a content address (expected /api/v1/book/{book_id}/).`);
      return n;
    });
    const valid = parsed.filter((n): n is NonNullable<typeof n> => n !== null);
    const titles = new Map((await this.catalog.findTitlesByBookIds([...new Set(valid.map((n) => n.bookId))])).map((t) => [t.book_id, t]));
    const chapterKeys = valid.filter((n) => n.chapterPath !== null && titles.has(n.bookId));
    const chapters = await this.catalog.findChapterIds(chapterKeys.map((n) => ({ titleId: titles.get(n.bookId)!.id, fullPath: n.chapterPath! })));
    const chapterOf = new Map(chapters.map((c) => [`${c.title_id}\u0000${c.full_path}`, c]));

    const resolved: ResolvedContent[] = [];
    const seen = new Set<string>();
    for (const n of valid) {
      const title = titles.get(n.bookId);
      if (!title) {
        problems.push(`${n.apiUrl} is not in this library.`);
        continue;
      }
      let chapter: ResolvedContent['chapter'] = null;
      if (n.chapterPath !== null) {
        const found = chapterOf.get(`${title.id}\u0000${n.chapterPath}`);
        if (!found) {
          problems.push(`${n.apiUrl} is not a chapter of "${title.title}".`);
          continue;
        }
        chapter = { id: found.id, full_path: found.full_path, label: found.label };
      }
      if (seen.has(n.apiUrl)) continue;
      seen.add(n.apiUrl);
      resolved.push({ apiUrl: n.apiUrl, title, chapter });
    }
    if (problems.length) throw badRequest(problems.join(' '), { [field]: problems });
    return resolved;
  }
}
