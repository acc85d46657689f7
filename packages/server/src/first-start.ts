/**
 * What a fresh install does once, through the same services as the command line: fill an empty library with the
 * sample books, and create a demo reader when there are no users yet (main.ts does that only once the server
 * listens, so the password it prints belongs to a server that is running).
 *
 * A sample import that was cut short (Ctrl-C, a crash) leaves DATA_DIR/sample-library.pending behind; the next
 * start sees it and finishes the import (books already in the library are skipped).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ImportReport } from '@lectern/core';
import type { Services } from './build-services.ts';
import type { Config } from './config.ts';
import { fetchSampleBooks, type UnavailableBook } from './sample/fetch.ts';
import { sampleMedia } from './sample/media.ts';
import { generatePassword } from './services/auth.ts';

export const DEMO_EMAIL = 'reader@lectern.local';
export const SAMPLE_PENDING_FILE = 'sample-library.pending';
/** The import's reason for a book it already holds (ImportService). */
const ALREADY = /^already in the library/;

export interface SampleImportReport extends ImportReport {
  /** Books the library already holds: not a failure (running library:sample twice is harmless). */
  already: ImportReport['failed'];
  /** Books that could not be fetched (no registry, offline). */
  unavailable: UnavailableBook[];
  /** The sample audiobook or video course, when it could not be made (no ffmpeg or espeak-ng, no Alice to read). */
  mediaUnavailable: UnavailableBook[];
}

export type SampleBookOutcome =
  | { kind: 'imported'; book: ImportReport['imported'][number] }
  | { kind: 'already' | 'failed'; file: string; reason: string };

export async function importSampleLibrary(
  services: Services,
  config: Config,
  opts: {
    withDebian?: boolean;
    /** also the sample audiobook and video course (sample/media.ts), when ffmpeg and espeak-ng are here */
    withMedia?: boolean;
    log?: (msg: string) => void;
    cacheDir?: string;
    onBook?: (outcome: SampleBookOutcome) => void;
  } = {},
): Promise<SampleImportReport> {
  const cacheDir = opts.cacheDir ?? config.sampleCacheDir;
  const { books, unavailable } = await fetchSampleBooks(cacheDir, opts);
  const media = opts.withMedia ? await sampleMedia(cacheDir, books, opts.log) : { media: [], unavailable: [] };
  const report: SampleImportReport = { imported: [], failed: [], already: [], unavailable, mediaUnavailable: media.unavailable };
  const sources = [...books.map((b) => ({ path: b.file, topics: b.topics, origin: b.origin })), ...media.media.map((m) => ({ path: m.folder, topics: m.topics, origin: m.origin }))];
  for (const book of sources) {
    const one = await services.importer.importPaths([book.path], { topics: book.topics, origin: book.origin });
    for (const b of one.imported) {
      report.imported.push(b);
      opts.onBook?.({ kind: 'imported', book: b });
    }
    for (const f of one.failed) {
      const kind = ALREADY.test(f.reason) ? 'already' : 'failed';
      report[kind].push(f);
      opts.onBook?.({ kind, ...f });
    }
  }
  return report;
}

/**
 * Imports the sample library when the library is empty or an earlier import was cut short; null when there was
 * nothing to do.
 */
export async function prepareSampleLibrary(
  services: Services,
  config: Config,
  opts: { log: (msg: string) => void; onBook?: (outcome: SampleBookOutcome) => void },
): Promise<SampleImportReport | null> {
  const marker = path.join(config.dataDir, SAMPLE_PENDING_FILE);
  const pending = await fs.stat(marker).then(
    () => true,
    () => false,
  );
  if (!pending && (await services.catalog.countTitles()) > 0) return null;
  opts.log(pending ? 'The sample library import was interrupted: finishing it…' : 'The library is empty: importing the sample library…');
  await fs.mkdir(config.dataDir, { recursive: true });
  await fs.writeFile(marker, `sample library import started ${new Date().toISOString()}\n`);
  // a fresh start shows every kind of title: the sample audiobook and video course too, where ffmpeg is
  const report = await importSampleLibrary(services, config, { withMedia: true, ...opts });
  // Books that could not be fetched are reported to the operator (library:sample adds them later); only an import
  // that did not run to its end is pending.
  await fs.rm(marker, { force: true });
  return report;
}

/** Creates the demo reader when there are no users at all; its random password is returned to be shown once. */
export async function createDemoAccount(services: Services): Promise<{ email: string; password: string } | null> {
  if ((await services.accounts.count()) > 0) return null;
  const password = generatePassword();
  await services.accounts.createUser({ email: DEMO_EMAIL, password, username: 'Demo Reader', status: 'subscriber' });
  return { email: DEMO_EMAIL, password };
}
