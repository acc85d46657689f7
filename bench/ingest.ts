/**
 * Import and decoding benchmark: each figure against an anchor timed in the same run, anchor and subject
 * alternating for `--rounds` rounds (at least 5), printed as the median and range (min-max) of the per-round ratio
 * (subject time / anchor time: lower is better) beside the median and range of the times themselves.
 *
 * 1. Sample library import (what a fresh install does, DESIGN.md's budget < 10 s): Alice's Adventures in
 *    Wonderland, The War of the Worlds and Moby-Dick into a fresh SQLite library each round (the books already
 *    fetched; building the app and its migrations are not timed). Each round starts with no import worker waiting
 *    (ingest/worker-host.ts): the first book waits for one to start, the next find the spare started meanwhile.
 *    Anchor: inflating every entry of the same three EPUB files with fflate, the least any import must do.
 * 2. Parsing and rendering every chapter of the same books (no database). Same anchor.
 * 3. base64 of 1 MiB (the reader's chapter encoding, core's own codec, as browsers without
 *    Uint8Array.fromBase64 run it): encode + decode. Anchor: Node's Buffer base64, both ways.
 * 4. crypt64 of an 800,000-character chapter (reader.md's encrypted chapter, as the server encrypts it and the
 *    browser decrypts it): encryptChapter + decryptChapter. Anchor: the npm xxtea-node encrypting and decrypting
 *    the same text with the same key (another client's implementation of the cipher).
 *
 * Usage: npx tsx bench/ingest.ts [--rounds 7]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { base64Decode, base64Encode, decryptChapter, deriveChapterKey, encryptChapter } from '@lectern/core';
import { unzipSync } from 'fflate';
import { buildServices } from '../packages/server/src/build-services.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { importSampleLibrary } from '../packages/server/src/first-start.ts';
import { parseEpub } from '../packages/server/src/ingest/epub.ts';
import { stopSpare } from '../packages/server/src/ingest/worker-host.ts';
import { renderChapter } from '../packages/server/src/ingest/render.ts';
import { fetchSampleLibrary } from '../packages/server/src/sample/fetch.ts';
import { summary } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
const rounds = Number(values.rounds);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');

/** xxtea-node (CommonJS, no types): the part of its API the bench uses. */
const xxtea = (await import('xxtea-node' as string)).default as {
  encrypt(data: Uint8Array, key: Uint8Array): Uint8Array;
  decrypt(data: Uint8Array, key: Uint8Array): Uint8Array | null;
};

const sampleCacheDir = path.join(os.tmpdir(), 'lectern-sample-cache');
const books = await fetchSampleLibrary(sampleCacheDir);
const files = books.map((b) => new Uint8Array(fs.readFileSync(b.file)));

async function timed(work: () => unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Rounds of anchor and subject, alternating which goes first; `prepare` (untimed) runs before each subject. */
async function compare(name: string, anchor: () => unknown, subject: () => unknown, prepare: () => Promise<unknown> = async () => {}) {
  await prepare();
  await timed(subject); // warm-up
  await timed(anchor);
  const subjectMs: number[] = [];
  const anchorMs: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let a: number;
    let s: number;
    if (round % 2 === 0) {
      a = await timed(anchor);
      await prepare();
      s = await timed(subject);
    } else {
      await prepare();
      s = await timed(subject);
      a = await timed(anchor);
    }
    subjectMs.push(s);
    anchorMs.push(a);
    ratios.push(s / a);
  }
  console.log(`| ${name} | ${summary(subjectMs, 1)} | ${summary(anchorMs, 1)} | **${summary(ratios)}** |`);
}

const inflateAll = () => {
  for (const f of files) unzipSync(f);
};

console.log(`\nLectern ingest benchmark — ${new Date().toISOString()} — ${rounds} rounds, anchor and subject alternating; node ${process.version}`);
console.log(`books: ${books.map((b) => path.basename(b.file)).join(', ')}`);
console.log('| subject | ms: median (min-max) | anchor ms: median (min-max) | ratio subject/anchor: median (min-max) |');
console.log('|---|---:|---:|---:|');

// 1. The sample import into a fresh library each round.
let fresh: { services: Awaited<ReturnType<typeof buildServices>>['services']; config: ReturnType<typeof loadConfig>; close: () => Promise<void> } | null = null;
const dirs: string[] = [];
await compare(
  'sample library import (3 books, fresh SQLite library) vs inflating the 3 EPUBs',
  inflateAll,
  async () => {
    const report = await importSampleLibrary(fresh!.services, fresh!.config, { cacheDir: sampleCacheDir });
    if (report.failed.length || report.imported.length !== books.length) throw new Error(`import failed: ${JSON.stringify(report.failed)}`);
  },
  async () => {
    await fresh?.close();
    // no worker left waiting from the last round: the first book starts one, as after a server's start
    stopSpare();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-import-'));
    dirs.push(dataDir);
    const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, sampleCacheDir });
    const built = await buildServices(config);
    fresh = { services: built.services, config, close: () => built.db.close() };
  },
);
await fresh!.close();
for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });

// 2. Parsing and rendering, no database.
await compare('parse + render every chapter of the 3 books vs inflating them', inflateAll, () => {
  for (const [i, data] of files.entries()) {
    const book = parseEpub(data, books[i]!.file);
    const chapters = new Set(book.chapters.map((c) => c.fullPath));
    for (const chapter of book.chapters) {
      renderChapter(chapter.rawHtml, {
        chapterFullPath: chapter.fullPath,
        allowScripts: false,
        chapterUrl: (fullPath, fragment) => `/read/${fullPath}${fragment ? `#${fragment}` : ''}`,
        resourceUrl: (fullPath) => `/files/${fullPath}`,
        isChapter: (fullPath) => chapters.has(fullPath),
      });
    }
  }
});

// 3. base64, 1 MiB, twenty times each way per timing (one pass is under a millisecond).
const mib = Uint8Array.from({ length: 1 << 20 }, (_, i) => (i * 7919) & 0xff);
const asText = Buffer.from(mib).toString('base64');
await compare(
  "base64 1 MiB x 20, encode + decode: core's codec vs Buffer",
  () => {
    for (let i = 0; i < 20; i++) Buffer.from(Buffer.from(mib).toString('base64'), 'base64');
  },
  () => {
    for (let i = 0; i < 20; i++) base64Decode(base64Encode(mib));
  },
);
if (base64Encode(mib) !== asText) throw new Error('base64 disagrees with Buffer');

// 4. crypt64, an 800,000-character chapter with typographic quotes and CJK text (multi-byte UTF-8).
const paragraph = '<p>“Call me Ishmael,” he said — 白鯨 — and the sea’s long swell rolled on.</p>\n';
const chapterHtml = paragraph.repeat(Math.ceil(800_000 / paragraph.length)).slice(0, 800_000);
const [userKey, bookId, chapterUri] = ['0123456789abcdef0123', '9781449373320', 'ch01.html'];
const xxteaKey = Buffer.from(deriveChapterKey(userKey, bookId, chapterUri), 'utf8');
await compare(
  'crypt64 800,000-character chapter, encrypt + decrypt: core vs xxtea-node',
  () => {
    const sealed = xxtea.encrypt(Buffer.from(chapterHtml, 'utf8'), xxteaKey);
    if (!xxtea.decrypt(sealed, xxteaKey)?.length) throw new Error('xxtea-node failed');
  },
  () => {
    const sealed = encryptChapter(chapterHtml, userKey, bookId, chapterUri);
    if (!decryptChapter(sealed.content, sealed.checksum, userKey, bookId, chapterUri).ok) throw new Error('crypt64 failed');
  },
);
