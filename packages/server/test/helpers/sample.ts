/** The real sample library, fetched once per machine into a shared cache so test files do not refetch it. */
import os from 'node:os';
import path from 'node:path';
import type { ImportReport } from '@lectern/core';
import type { Lectern } from '../../src/app.ts';
import { importSampleLibrary } from '../../src/first-start.ts';

export const SAMPLE_CACHE = path.join(os.tmpdir(), 'lectern-sample-cache');

export function importSamples(lectern: Lectern): Promise<ImportReport> {
  return importSampleLibrary(lectern.services, lectern.config, { cacheDir: SAMPLE_CACHE });
}
