/** The import worker's writer: every byte is counted against the budget before it is written. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StagedFileWriter, WriteBudgetError } from '../../src/storage/content-store.ts';

const MB = 1024 * 1024;

describe('StagedFileWriter', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-staging-'));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('numbers the files, keeps safe extensions, and refuses the write that would pass the budget', async () => {
    const writer = new StagedFileWriter(dir, MB, 'IMPORT_MAX_WRITTEN_MB');
    expect(await writer.write(new Uint8Array(0.4 * MB), '.PNG')).toBe('00000.png');
    expect(await writer.write(new Uint8Array(0.4 * MB), '.x/../y')).toBe('00001');
    // Chapter HTML goes to the database but counts all the same.
    writer.count(0.15 * MB);
    await expect(writer.write(new Uint8Array(0.1 * MB), '.css')).rejects.toThrow(
      new WriteBudgetError('the import would write more than 1 MB, the limit for one import (IMPORT_MAX_WRITTEN_MB)'),
    );
    // The refused file was never written.
    expect(fs.readdirSync(dir).sort()).toEqual(['00000.png', '00001']);
  });
});
