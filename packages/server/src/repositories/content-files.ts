/** The storage paths rows name (the move between content stores, docs/operations.md "The content store"). */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

export class ContentFilesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every stored file a row names, once each: covers, preview clips, book resources and PDF samples, media parts. */
  async storedPaths(): Promise<string[]> {
    const [titles, resources, media] = await Promise.all([
      this.db.selectFrom('titles').select(['cover_path', 'preview_path']).execute(),
      this.db.selectFrom('resources').select(['storage_path', 'sample_storage_path']).execute(),
      this.db.selectFrom('media_files').select('storage_path').execute(),
    ]);
    const all = new Set<string>();
    for (const t of titles) for (const p of [t.cover_path, t.preview_path]) if (p) all.add(p);
    for (const r of resources) for (const p of [r.storage_path, r.sample_storage_path]) if (p) all.add(p);
    for (const m of media) all.add(m.storage_path);
    return [...all].sort();
  }
}
