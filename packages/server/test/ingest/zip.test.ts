/**
 * The zip reader against archives that lie: sizes are counted as entries inflate, never trusted from headers.
 */
import { describe, expect, it } from 'vitest';
import { IngestError } from '../../src/ingest/types.ts';
import { ZipArchive } from '../../src/ingest/zip.ts';
import { buildZip } from './helpers.ts';
import { lyingZip, zipBomb } from '../fixtures/hostile.ts';

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

  it('reads UTF-8 names written without the UTF-8 flag (Info-ZIP zip -X), and Latin-1 only where the bytes cannot be UTF-8', () => {
    const zip = buildZip({ mimetype: 'application/epub+zip', 'xhtml/一.xhtml': '<p>一</p>', 'caf\u00e9.txt': 'x' }).slice();
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let at = 0; at + 4 <= zip.byteLength; at++) {
      const signature = view.getUint32(at, true);
      // clear bit 11 (UTF-8 names) in every local and central header, as Info-ZIP's zip -X leaves it
      if (signature === 0x04034b50) view.setUint16(at + 6, view.getUint16(at + 6, true) & ~0x800, true);
      if (signature === 0x02014b50) view.setUint16(at + 8, view.getUint16(at + 8, true) & ~0x800, true);
    }
    // the second name's é (C3 A9) as an old archiver's Latin-1 bytes E9 E9 ("éé"): not UTF-8
    const utf8Name = Buffer.from('café.txt');
    for (let at = Buffer.from(zip).indexOf(utf8Name); at >= 0; at = Buffer.from(zip).indexOf(utf8Name, at + 1)) zip.set([0xe9, 0xe9], at + 3);
    const archive = new ZipArchive(zip, ignore);
    expect(archive.paths).toContain('xhtml/一.xhtml');
    expect(archive.paths).toContain('caféé.txt');
    expect(new TextDecoder().decode(archive.read(['xhtml/一.xhtml'], ignore).get('xhtml/一.xhtml'))).toBe('<p>一</p>');
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
