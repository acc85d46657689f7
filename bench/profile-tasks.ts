/**
 * The busy stretches of a V8 .cpuprofile (bench/reader-start-profile.ts): samples not idle, split where the thread was
 * idle for over 1 ms, each stretch of at least MIN ms (default 30) with its start and length (ms from the profile's
 * start), the scripts whose code it ran (by the outermost frame with an address) and the functions with the most
 * self time. Long stretches are the page's long tasks, near enough (a task's own layout and style show as native).
 *
 *   npx tsx bench/profile-tasks.ts file.cpuprofile [MIN]
 */
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, min = '30'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const short = (url: string) => url.replace(/^.*\//, '').slice(0, 40);
const idle = (id: number) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName);
const share = (counts: Map<string, number>, total: number, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${Math.round((v / total) * 100)}%`)
    .join(' | ');

let at = 0;
let start = -1;
let last = -1;
let idleFrom = -1;
let stretch: number[] = [];
const flush = () => {
  if (start >= 0 && last - start >= Number(min)) {
    const scripts = new Map<string, number>();
    const self = new Map<string, number>();
    for (const id of stretch) {
      let outer = '(native)';
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) if (byId.get(n)!.callFrame.url) outer = short(byId.get(n)!.callFrame.url);
      scripts.set(outer, (scripts.get(outer) ?? 0) + 1);
      const f = byId.get(id)!.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${short(f.url)}:${f.lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + 1);
    }
    console.log(`${Math.round(start)} ms +${Math.round(last - start)}  scripts: ${share(scripts, stretch.length, 4)}\n    self: ${share(self, stretch.length, 5)}`);
  }
  start = -1;
  stretch = [];
};
profile.samples.forEach((id, i) => {
  at += (profile.timeDeltas[i] ?? 0) / 1000;
  if (idle(id)) {
    if (idleFrom < 0) idleFrom = at;
    if (at - idleFrom > 1) flush();
    return;
  }
  idleFrom = -1;
  if (start < 0) start = at;
  last = at;
  stretch.push(id);
});
flush();
