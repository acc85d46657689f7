/**
 * What reading fidelity (docs/decisions.md "Reading fidelity: the importer's half") costs at import: parsing and
 * rendering every chapter of the sample books (and of the fidelity fixture) with this tree's importer, against the same
 * work by the importer of a git revision (default `main`, before the CSS, MathML and SVG sanitisers) checked out into a
 * temporary folder here, alternating which runs first, each round; the book's stylesheets are sanitised too (the worker
 * does that for each .css file). Prints the median and range of the times and of the per-round ratio (this tree / the
 * revision: lower is better).
 *
 * Usage: npx tsx bench/fidelity.ts [--rounds 7] [--anchor main]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bookCssRewriter, sanitizeStylesheet } from '../packages/server/src/ingest/css.ts';
import { parseEpub } from '../packages/server/src/ingest/epub.ts';
import { decodeText } from '../packages/server/src/ingest/markup.ts';
import { renderChapter } from '../packages/server/src/ingest/render.ts';
import { fetchSampleLibrary } from '../packages/server/src/sample/fetch.ts';
import { fidelityEpub } from '../packages/server/test/fixtures/fidelity.ts';
import { summary } from './stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, anchor: { type: 'string', default: 'main' } } });
const rounds = Number(values.rounds);
if (rounds < 5) console.warn('fewer than 5 rounds: the figures are not for docs/performance.md');

const root = path.resolve(import.meta.dirname, '..');
// The revision's importer, inside the tree so that its imports resolve against the same node_modules.
const anchorDir = fs.mkdtempSync(path.join(root, 'bench', '.anchor-ingest-'));
process.on('exit', () => fs.rmSync(anchorDir, { recursive: true, force: true }));
const listing = execFileSync('git', ['ls-tree', '--name-only', values.anchor!, 'packages/server/src/ingest/'], { cwd: root, encoding: 'utf8' });
for (const file of listing.split('\n').filter((f) => f.endsWith('.ts'))) {
  fs.writeFileSync(path.join(anchorDir, path.basename(file)), execFileSync('git', ['show', `${values.anchor}:${file}`], { cwd: root }));
}
// The ingest files import '../storage/…' and the like only from the worker, which is not used here.
const anchorEpub = (await import(path.join(anchorDir, 'epub.ts'))) as typeof import('../packages/server/src/ingest/epub.ts');
const anchorRender = (await import(path.join(anchorDir, 'render.ts'))) as typeof import('../packages/server/src/ingest/render.ts');

const books = await fetchSampleLibrary(path.join(os.tmpdir(), 'lectern-sample-cache'));
const files = [...books.map((b) => ({ name: path.basename(b.file), data: new Uint8Array(fs.readFileSync(b.file)) })), { name: 'fidelity.epub', data: fidelityEpub() }];

function importer(parse: typeof parseEpub, render: typeof renderChapter, sanitizeCss: boolean) {
  return () => {
    for (const file of files) {
      const book = parse(file.data, file.name);
      const chapterPaths = new Set(book.chapters.map((c) => c.fullPath));
      const resources = new Set(book.resources.map((r) => r.fullPath));
      for (const chapter of book.chapters) {
        render(chapter.rawHtml, {
          chapterFullPath: chapter.fullPath,
          allowScripts: false,
          chapterUrl: (p) => `/read/${p}`,
          resourceUrl: (p) => `/files/${p}`,
          isChapter: (p) => chapterPaths.has(p),
          isResource: (p) => resources.has(p),
          inlineStyleUrl: (n) => `/files/${chapter.fullPath}.style-${n + 1}.css`,
        });
      }
      if (!sanitizeCss) continue;
      for (const r of book.resources) {
        if (r.mediaType === 'text/css') sanitizeStylesheet(decodeText(r.data).text, bookCssRewriter(r.fullPath, (p) => resources.has(p), (p) => `/files/${p}`));
      }
    }
  };
}

const subject = importer(parseEpub, renderChapter, true);
const anchor = importer(anchorEpub.parseEpub, anchorRender.renderChapter as typeof renderChapter, false);

const timed = (work: () => void) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

subject();
anchor();
const subjectMs: number[] = [];
const anchorMs: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  let a: number;
  let s: number;
  if (round % 2 === 0) {
    a = timed(anchor);
    s = timed(subject);
  } else {
    s = timed(subject);
    a = timed(anchor);
  }
  subjectMs.push(s);
  anchorMs.push(a);
  ratios.push(s / a);
}
console.log(`\nLectern fidelity import benchmark — ${new Date().toISOString()} — ${rounds} rounds, alternating; node ${process.version}; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`books: ${files.map((f) => f.name).join(', ')}`);
console.log('| subject (anchor) | subject ms | anchor ms | ratio |');
console.log('|---|---|---|---|');
console.log(`| parse + render every chapter + sanitise the stylesheets, this tree (${values.anchor}'s importer) | ${summary(subjectMs, 1)} | ${summary(anchorMs, 1)} | **${summary(ratios)}** |`);
