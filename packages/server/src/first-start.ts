/**
 * What a fresh install does once: fill an empty library with the sample books and create a demo reader when
 * there are no users yet. The demo password is random and shown only at that moment.
 */
import type { ImportReport } from '@lectern/core';
import type { Services } from './app.ts';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { CatalogRepository } from './repositories/catalog.ts';
import { UsersRepository } from './repositories/users.ts';
import { generatePassword } from './services/auth.ts';
import { fetchSampleLibrary } from './sample/fetch.ts';

export const DEMO_EMAIL = 'reader@lectern.local';

export async function importSampleLibrary(
  services: Services,
  config: Config,
  opts: { withDebian?: boolean; log?: (msg: string) => void; cacheDir?: string } = {},
): Promise<ImportReport> {
  const books = await fetchSampleLibrary(opts.cacheDir ?? config.sampleCacheDir, opts);
  const report: ImportReport = { imported: [], failed: [] };
  for (const book of books) {
    const one = await services.importer.importPaths([book.file], { topics: book.topics, origin: book.origin });
    report.imported.push(...one.imported);
    report.failed.push(...one.failed);
  }
  return report;
}

export interface FirstStartResult {
  sample: ImportReport | null;
  demoAccount: { email: string; password: string } | null;
}

export async function prepareFirstStart(db: Db, services: Services, config: Config, log: (msg: string) => void): Promise<FirstStartResult> {
  const result: FirstStartResult = { sample: null, demoAccount: null };
  if ((await new CatalogRepository(db.kysely).countTitles()) === 0) {
    log('The library is empty: importing the sample library…');
    result.sample = await importSampleLibrary(services, config, { log });
  }
  if ((await new UsersRepository(db.kysely).count()) === 0) {
    const password = generatePassword();
    await services.accounts.createUser({ email: DEMO_EMAIL, password, username: 'Demo Reader', status: 'subscriber' });
    result.demoAccount = { email: DEMO_EMAIL, password };
  }
  return result;
}
