/**
 * What the client's schemas chunk (`assets/schemas-*.js`) costs in profiles of bench/reader-start-profile.ts: per
 * profile, its module evaluation (samples under the chunk's top-level frame), the busy stretch holding that evaluation
 * (split where the thread was idle over 1 ms, as bench/profile-tasks.ts), every sample with the chunk on the stack
 * (evaluation, schemas built on first use, parsing), and the most of that in one stretch.
 *
 *   npx tsx bench/profile-schemas.ts /tmp/reader-start-1.cpuprofile ...
 */
import fs from 'node:fs';
import path from 'node:path';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  children?: number[];
}
const CHUNK = /\/assets\/schemas-[^/]*\.js$/;
const ms = (n: number) => `${Math.round(n)} ms`;
for (const file of process.argv.slice(2)) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = (id: number) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName);
  type Stretch = { start: number; end: number; evaluation: number; chunk: number };
  const stretches: Stretch[] = [];
  let cur: Stretch | null = null;
  let at = 0;
  let idleFrom = -1;
  let evaluation = 0;
  let chunk = 0;
  p.samples.forEach((id, i) => {
    at += (p.timeDeltas[i] ?? 0) / 1000;
    if (idle(id)) {
      if (idleFrom < 0) idleFrom = at;
      if (at - idleFrom > 1 && cur) {
        stretches.push(cur);
        cur = null;
      }
      return;
    }
    idleFrom = -1;
    cur ??= { start: at, end: at, evaluation: 0, chunk: 0 };
    cur.end = at;
    // the sample lasts until the next one
    const w = (p.timeDeltas[i + 1] ?? 0) / 1000;
    let onChunk = false;
    let inEvaluation = false;
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n)!.callFrame;
      if (!CHUNK.test(f.url)) continue;
      onChunk = true;
      // the module's own body: the bundle's top-level function
      if (f.lineNumber === 0 && f.columnNumber === 0 && !f.functionName) inEvaluation = true;
    }
    if (onChunk) {
      chunk += w;
      cur.chunk += w;
    }
    if (inEvaluation) {
      evaluation += w;
      cur.evaluation += w;
    }
  });
  if (cur) stretches.push(cur);
  const held = stretches.filter((s) => s.evaluation > 0).sort((a, b) => b.evaluation - a.evaluation)[0];
  const most = [...stretches].sort((a, b) => b.chunk - a.chunk)[0];
  console.log(
    `${path.basename(file)}: evaluation ${ms(evaluation)} in a stretch of ${held ? ms(held.end - held.start) : '-'}; ` +
      `chunk on the stack ${ms(chunk)}, at most ${most ? ms(most.chunk) : '-'} in one stretch`,
  );
}
