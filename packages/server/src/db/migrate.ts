/**
 * Migrations run at start (and by `lectern migrate`). They are plain modules listed here in order, so the same
 * list runs on both engines; each receives the engine for the few column types that differ.
 */
import { type Kysely, type Migration, Migrator } from 'kysely';
import type { Db } from './database.ts';
import * as m0001 from './migrations/0001_foundation.ts';
import * as m0002 from './migrations/0002_playlists.ts';
import * as m0003 from './migrations/0003_usage.ts';
import * as m0004 from './migrations/0004_sign_in_limits.ts';
import * as m0005 from './migrations/0005_reading_positions.ts';
import * as m0007 from './migrations/0007_catalog_works_samples.ts';

type EngineMigration = { up(db: Kysely<unknown>, engine: Db['engine']): Promise<void> };

const MIGRATIONS: Record<string, EngineMigration> = {
  '0001_foundation': m0001,
  '0002_playlists': m0002,
  '0003_usage': m0003,
  '0004_sign_in_limits': m0004,
  '0005_reading_positions': m0005,
  '0007_catalog_works_samples': m0007,
};

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (k) => m.up(k, db.engine) };
  }
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
