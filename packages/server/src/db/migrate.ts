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
import * as m0012 from './migrations/0012_annotations.ts';
import * as m0011 from './migrations/0011_fidelity.ts';
import * as m0013 from './migrations/0013_registration.ts';
import * as m0014 from './migrations/0014_subscriptions.ts';
import * as m0015 from './migrations/0015_password_resets.ts';
import * as m0016 from './migrations/0016_search.ts';
import * as m0009 from './migrations/0009_listing_indexes.ts';
import * as m0017 from './migrations/0017_home.ts';
import * as m0018 from './migrations/0018_search_scale.ts';
import * as m0019 from './migrations/0019_navigation.ts';
import * as m0020 from './migrations/0020_live_training.ts';
import * as m0021 from './migrations/0021_catalog_changes.ts';
import * as m0022 from './migrations/0022_rendition.ts';
import * as m0025 from './migrations/0025_analytics.ts';
import * as m0024 from './migrations/0024_teams.ts';
import * as m0023 from './migrations/0023_media_overlays.ts';
import * as m0026 from './migrations/0026_chapter_root.ts';
import * as m0027 from './migrations/0027_search_cjk.ts';
import * as m0028 from './migrations/0028_titles_and_works.ts';
import * as m0029 from './migrations/0029_media.ts';
import * as m0030 from './migrations/0030_audit_log.ts';
import * as m0031 from './migrations/0031_admin_console.ts';
import * as m0032 from './migrations/0032_console_scale.ts';
import * as m0033 from './migrations/0033_admin_selling.ts';
import * as m0038 from './migrations/0038_marketing.ts';
import * as m0037 from './migrations/0037_markup_recovery.ts';
import * as m0039 from './migrations/0039_transformation_playlists.ts';
import * as m0043 from './migrations/0043_align_x_center.ts';
import * as m0035 from './migrations/0035_account_settings.ts';
import * as m0040 from './migrations/0040_reading_summary.ts';
import * as m0041 from './migrations/0041_job_claims.ts';
import * as m0044 from './migrations/0044_scripts_consent.ts';
import * as m0045 from './migrations/0045_dashboard_today.ts';
import * as m0046 from './migrations/0046_reading_months.ts';
import * as m0047 from './migrations/0047_server_changes.ts';
import * as m0048 from './migrations/0048_import_jobs.ts';
import * as m0049 from './migrations/0049_import_job_unavailable.ts';
import * as m0050 from './migrations/0050_name_keys.ts';

type EngineMigration = { up(db: Kysely<unknown>, engine: Db['engine']): Promise<void> };

const MIGRATIONS: Record<string, EngineMigration> = {
  '0001_foundation': m0001,
  '0002_playlists': m0002,
  '0003_usage': m0003,
  '0004_sign_in_limits': m0004,
  '0005_reading_positions': m0005,
  '0007_catalog_works_samples': m0007,
  '0012_annotations': m0012,
  '0011_fidelity': m0011,
  '0013_registration': m0013,
  '0014_subscriptions': m0014,
  '0015_password_resets': m0015,
  '0016_search': m0016,
  '0009_listing_indexes': m0009,
  '0017_home': m0017,
  '0018_search_scale': m0018,
  '0019_navigation': m0019,
  '0020_live_training': m0020,
  '0021_catalog_changes': m0021,
  '0022_rendition': m0022,
  '0025_analytics': m0025,
  '0024_teams': m0024,
  '0023_media_overlays': m0023,
  '0026_chapter_root': m0026,
  '0027_search_cjk': m0027,
  '0028_titles_and_works': m0028,
  '0029_media': m0029,
  '0030_audit_log': m0030,
  '0031_admin_console': m0031,
  '0032_console_scale': m0032,
  '0033_admin_selling': m0033,
  '0038_marketing': m0038,
  '0037_markup_recovery': m0037,
  '0039_transformation_playlists': m0039,
  '0035_account_settings': m0035,
  '0043_align_x_center': m0043,
  '0040_reading_summary': m0040,
  '0041_job_claims': m0041,
  '0044_scripts_consent': m0044,
  '0045_dashboard_today': m0045,
  '0046_reading_months': m0046,
  '0047_server_changes': m0047,
  '0048_import_jobs': m0048,
  '0049_import_job_unavailable': m0049,
  '0050_name_keys': m0050,
};

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (k) => m.up(k, db.engine) };
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
