/**
 * The zip reader against archives that lie: sizes are counted as entries inflate, never trusted from headers.
 */
import { describe, expect, it } from 'vitest';
import { IngestError } from '../../src/ingest/types.ts';
import { ZipArchive } from '../../src/ingest/zip.ts';
import { buildZip } from './helpers.ts';
import { lyingZip, zipBomb } from './hostile.ts';

const MB = 1024 * 1024;
const ignore = () => {};

describe('ZipArchive', () => {
  it('reads honest entries, stored and deflated, and reports a damaged one without sinking the rest', () => {
    const zip = buildZip({ mimetype: 'application/epub+zip', 'a.txt': 'hello '.repeat(1000), 'b.txt': 'world' });
    // Break b.txt's data: its local header stays, its deflate stream becomes noise.
    const broken = zip.slice();
    const at = Buffer.from(broken).indexOf('b.txt', 0, 'latin1') + 'b.txt'.length;
    broken.fill(0xff, at, at + 7);
    const archive = new ZipArchive(broken, ignore);
    expect(archive.paths).toEqual(['mimetype', 'a.txt', 'b.txt']);
    expect(archive.isCompressed('mimetype')).toBe(false);
    const damaged: string[] = [];
    const files = archive.read(['mimetype', 'a.txt', 'b.txt'], (path) => damaged.push(path));
    expect(new TextDecoder().decode(files.get('a.txt'))).toBe('hello '.repeat(1000));
    expect(new TextDecoder().decode(files.get('mimetype'))).toBe('application/epub+zip');
    expect(damaged).toEqual(['b.txt']);
  });

  it('stops an entry at the size its directory declares: the lie costs nothing', () => {
    const archive = new ZipArchive(lyingZip(64), ignore);
    expect(() => archive.read(['OEBPS/data.bin'], ignore)).toThrow(
      new IngestError('zip entry OEBPS/data.bin inflates to more than the 100 bytes its directory declares: the archive lies about its sizes'),
    );
  });

  it('refuses an archive that declares more than the budget, or 100 times its own size', () => {
    expect(() => new ZipArchive(zipBomb(20), ignore, { maxInflatedBytes: 10 * MB, limitName: 'IMPORT_MAX_WRITTEN_MB' })).toThrow(
      new IngestError('the zip archive would inflate to more than 10 MB, the limit for one import (IMPORT_MAX_WRITTEN_MB)'),
    );
    expect(() => new ZipArchive(zipBomb(20), ignore)).toThrow(/^the zip archive would inflate to 21 MB, \d+ times its own size/);
  });
});
