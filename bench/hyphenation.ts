/**
 * What supplying hyphenation at import would cost (docs/decisions.md "Hyphenation"): the npm `hyphen`
 * library (Liang's algorithm, TeX patterns) inserting U+00AD into every word of every rendered chapter of the
 * sample library (Alice, The War of the Worlds, Moby-Dick; English patterns), as an import step would.
 *
 * Subject: parse + render every chapter (what the importer does, no database) and then hyphenate the text nodes of
 * each rendered chapter and serialise it again. Anchor: parse + render alone. Rounds alternate which goes first;
 * printed as median and range (min-max) of the per-round ratio, beside the times. Also printed: the heap the
 * English patterns take once loaded, and how much longer the stored chapter HTML gets.
 *
 * The library is not a dependency of Lectern: install it outside the repository and point HYPHEN_DIR at it.
 * Usage: (cd /tmp/hyph && npm install hyphen@1.14.1) && HYPHEN_DIR=/tmp/hyph/node_modules/hyphen npx tsx bench/hyphenation.ts [--rounds 7]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import render from 'dom-serializer';
import { parseEpub } from '../packages/server/src/ingest/epub.ts';
import { parseHtml, type DomNode } from '../packages/server/src/ingest/markup.ts';
import { renderChapter } from '../packages/server/src/ingest/render.ts';
import { fetchSampleLibrary } from '../packages/server/src/sample/fetch.ts';
import { summary } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
const rounds = Number(values.rounds);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');
const dir = process.env.HYPHEN_DIR;
if (!dir) throw new Error('HYPHEN_DIR: the folder of an installed hyphen package (see the usage line)');

const heapBefore = (globalThis.gc?.(), process.memoryUsage().heapUsed);
const { hyphenateSync } = createRequire(import.meta.url)(path.join(dir, 'en-us')) as { hyphenateSync: (text: string) => string };
hyphenateSync('warm up the patterns'); // the patterns are compiled on first use
const heapAfter = (globalThis.gc?.(), process.memoryUsage().heapUsed);

const books = await fetchSampleLibrary(path.join(os.tmpdir(), 'lectern-sample-cache'));
const files = books.map((b) => new Uint8Array(fs.readFileSync(b.file)));

/** Elements whose text is not prose to break. */
const SKIP = new Set(['script', 'style', 'pre', 'code', 'kbd', 'samp', 'var', 'math', 'svg']);
function hyphenateNodes(nodes: readonly DomNode[]): void {
  for (const node of nodes) {
    if (node.type === 'text') node.data = hyphenateSync(node.data);
    else if ('children' in node && !('name' in node && SKIP.has(node.name))) hyphenateNodes(node.children);
  }
}

let before = 0;
let after = 0;
function renderAll(hyphenate: boolean): void {
  before = 0;
  after = 0;
  for (const [i, data] of files.entries()) {
    const book = parseEpub(data, books[i]!.file);
    const chapters = new Set(book.chapters.map((c) => c.fullPath));
    for (const chapter of book.chapters) {
      const { html } = renderChapter(chapter.rawHtml, {
        chapterFullPath: chapter.fullPath,
        allowScripts: false,
        chapterUrl: (fullPath, fragment) => `/read/${fullPath}${fragment ? `#${fragment}` : ''}`,
        resourceUrl: (fullPath) => `/files/${fullPath}`,
        isChapter: (fullPath) => chapters.has(fullPath),
      });
      before += html.length;
      if (!hyphenate) continue;
      const doc = parseHtml(html);
      hyphenateNodes(doc.children);
      after += render(doc, { encodeEntities: false }).length;
    }
  }
}

const timed = (work: () => void) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

timed(() => renderAll(true)); // warm-up
timed(() => renderAll(false));
const subjectMs: number[] = [];
const anchorMs: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const first = round % 2 === 0;
  const a1 = first ? timed(() => renderAll(false)) : 0;
  const s = timed(() => renderAll(true));
  const a = first ? a1 : timed(() => renderAll(false));
  subjectMs.push(s);
  anchorMs.push(a);
  ratios.push(s / a);
}
renderAll(true);
console.log(`\nhyphenation at import — ${new Date().toISOString()} — ${rounds} rounds alternating; node ${process.version}`);
console.log(`books: ${books.map((b) => path.basename(b.file)).join(', ')}`);
console.log('| subject | ms: median (min-max) | anchor ms: median (min-max) | ratio subject/anchor: median (min-max) |');
console.log('|---|---:|---:|---:|');
console.log(`| parse + render + hyphenate (en-us) vs parse + render | ${summary(subjectMs, 1)} | ${summary(anchorMs, 1)} | **${summary(ratios)}** |`);
console.log(`English patterns in the heap: ${((heapAfter - heapBefore) / 1048576).toFixed(1)} MiB${globalThis.gc ? '' : ' (without --expose-gc: rough)'}`);
console.log(`stored chapter HTML: ${before} -> ${after} characters (+${(((after - before) / before) * 100).toFixed(1)}%)`);
