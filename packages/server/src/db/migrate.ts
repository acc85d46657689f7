/**
 * Migrations run at start (and by `lectern migrate`). They are plain modules listed here in order, so the same
 * list runs on both engines; each receives the engine for the few column types that differ.
 */
import { type Kysely, type Migration, Migrator } from 'kysely';
import type { Db } from './database.ts';

type EngineMigration = { up(db: Kysely<unknown>, engine: Db['engine']): Promise<void> };

// Each module is loaded only to run it: a database that is up to date (every start but the first after an upgrade)
// loads none of them.
const MIGRATIONS: Record<string, () => Promise<EngineMigration>> = {
  '0001_foundation': () => import('./migrations/0001_foundation.ts'),
  '0002_playlists': () => import('./migrations/0002_playlists.ts'),
  '0003_usage': () => import('./migrations/0003_usage.ts'),
  '0004_sign_in_limits': () => import('./migrations/0004_sign_in_limits.ts'),
  '0005_reading_positions': () => import('./migrations/0005_reading_positions.ts'),
  '0007_catalog_works_samples': () => import('./migrations/0007_catalog_works_samples.ts'),
  '0012_annotations': () => import('./migrations/0012_annotations.ts'),
  '0011_fidelity': () => import('./migrations/0011_fidelity.ts'),
  '0013_registration': () => import('./migrations/0013_registration.ts'),
  '0014_subscriptions': () => import('./migrations/0014_subscriptions.ts'),
  '0015_password_resets': () => import('./migrations/0015_password_resets.ts'),
  '0016_search': () => import('./migrations/0016_search.ts'),
  '0009_listing_indexes': () => import('./migrations/0009_listing_indexes.ts'),
  '0017_home': () => import('./migrations/0017_home.ts'),
  '0018_search_scale': () => import('./migrations/0018_search_scale.ts'),
  '0019_navigation': () => import('./migrations/0019_navigation.ts'),
  '0020_live_training': () => import('./migrations/0020_live_training.ts'),
  '0021_catalog_changes': () => import('./migrations/0021_catalog_changes.ts'),
  '0022_rendition': () => import('./migrations/0022_rendition.ts'),
  '0025_analytics': () => import('./migrations/0025_analytics.ts'),
  '0024_teams': () => import('./migrations/0024_teams.ts'),
  '0023_media_overlays': () => import('./migrations/0023_media_overlays.ts'),
  '0026_chapter_root': () => import('./migrations/0026_chapter_root.ts'),
  '0027_search_cjk': () => import('./migrations/0027_search_cjk.ts'),
  '0028_titles_and_works': () => import('./migrations/0028_titles_and_works.ts'),
  '0029_media': () => import('./migrations/0029_media.ts'),
  '0030_audit_log': () => import('./migrations/0030_audit_log.ts'),
  '0031_admin_console': () => import('./migrations/0031_admin_console.ts'),
  '0032_console_scale': () => import('./migrations/0032_console_scale.ts'),
  '0033_admin_selling': () => import('./migrations/0033_admin_selling.ts'),
  '0038_marketing': () => import('./migrations/0038_marketing.ts'),
  '0037_markup_recovery': () => import('./migrations/0037_markup_recovery.ts'),
  '0039_transformation_playlists': () => import('./migrations/0039_transformation_playlists.ts'),
  '0035_account_settings': () => import('./migrations/0035_account_settings.ts'),
  '0043_align_x_center': () => import('./migrations/0043_align_x_center.ts'),
  '0040_reading_summary': () => import('./migrations/0040_reading_summary.ts'),
  '0041_job_claims': () => import('./migrations/0041_job_claims.ts'),
  '0044_scripts_consent': () => import('./migrations/0044_scripts_consent.ts'),
  '0045_dashboard_today': () => import('./migrations/0045_dashboard_today.ts'),
  '0046_reading_months': () => import('./migrations/0046_reading_months.ts'),
  '0047_server_changes': () => import('./migrations/0047_server_changes.ts'),
  '0048_import_jobs': () => import('./migrations/0048_import_jobs.ts'),
  '0049_import_job_unavailable': () => import('./migrations/0049_import_job_unavailable.ts'),
  '0050_name_keys': () => import('./migrations/0050_name_keys.ts'),
};

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrations: Record<string, Migration> = {};
  for (const [name, load] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: async (k) => (await load()).up(k, db.engine) };
  }
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations },
    // Numbers are handed out to work done side by side and land in any order: a database that has run a later
    // number still takes an earlier one that arrives after it (each migration touches its own tables).
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
