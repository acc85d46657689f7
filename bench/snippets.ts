/**
 * The cost of making search snippets (util/search-text.ts `snippetOf`) against the same function at another
 * commit (BASE, default 28e6462: before search learnt Chinese and Japanese), on 2,000 generated English passages
 * of 120 words with curly quotes, dashes and accents, four queries (a word, two words, a phrase, a prefix). The two
 * versions alternate, ROUNDS rounds after a warm-up (at least 5); each round makes 40,000 snippets with each. Prints
 * the median and range of each in ms and of the ratio now/base per round, and says if the two made different text.
 *
 *   npx tsx bench/snippets.ts                       (BASE=<commit> ROUNDS=7 by default)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as now from '../packages/server/src/util/search-text.ts';
import { summary } from './stats.ts';

const BASE = process.env.BASE ?? '28e6462';
const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 7));
const source = 'packages/server/src/util/search-text.ts';
const root = path.resolve(import.meta.dirname, '..');
// the base version beside the current one, so its relative imports resolve the same
const baseFile = path.join(root, 'packages/server/src/util', `.bench-base-search-text-${process.pid}.ts`);
fs.writeFileSync(baseFile, execFileSync('git', ['show', `${BASE}:${source}`], { cwd: root }));
try {
  const base = (await import(baseFile)) as typeof now;
  const words = 'the whale “sea” ship captain’s Ahab white — ocean harpoon sailor voyage deck mast wind storm café naïve'.split(' ');
  let seed = 3;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const passages = Array.from({ length: 2000 }, () => Array.from({ length: 120 }, () => words[Math.floor(random() * words.length)]).join(' '));
  const queries = ['harpoon', 'white whale', '"captain ahab"', 'storm*'].map((q) => now.parseQuery(q));
  const run = (m: typeof now) => {
    const start = performance.now();
    let text = 0;
    for (let r = 0; r < 5; r++) for (const q of queries) for (const p of passages) text += m.snippetOf(p, q)?.length ?? 0;
    return { ms: performance.now() - start, text };
  };
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const a = run(now);
    const b = run(base);
    if (a.text !== b.text) console.log(`round ${round}: the snippets differ (${a.text} characters against ${b.text})`);
    if (round === 0) continue;
    ours.push(a.ms);
    theirs.push(b.ms);
  }
  console.log(`snippetOf, 40,000 snippets: now ${summary(ours, 0)} ms, ${BASE} ${summary(theirs, 0)} ms, ratio ${summary(ours.map((o, i) => o / theirs[i]!))} (${ROUNDS} rounds)`);
} finally {
  fs.rmSync(baseFile, { force: true });
}
