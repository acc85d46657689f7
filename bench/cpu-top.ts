/**
 * Reads a V8 .cpuprofile (node --cpu-prof, e.g. `npm run bench -- --only chapter --cpu-prof /tmp/prof`) and prints
 * the functions with the most self time, and (with --inclusive) the most total time, with their source location.
 * Usage: npx tsx bench/cpu-top.ts file.cpuprofile [--top 40] [--inclusive] [--stacks functionName] [--window from-to] [--groups]
 *   --stacks   the most frequent call stacks (innermost 8 frames) of the samples in that function
 *   --window   only the samples taken between these two times (µs of the monotonic clock, as bench/http.ts prints
 *              them for each profiled route), so start-up and other routes' load are left out
 *   --groups   the samples by kind of work (the socket write, gzip, encryption, the database, hooks, ...): each
 *              sample goes to the kind of the innermost frame on its stack that has one
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '40' }, inclusive: { type: 'boolean' }, stacks: { type: 'string' }, window: { type: 'string' }, groups: { type: 'boolean' } } });
const profile = JSON.parse(fs.readFileSync(positionals[0]!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const hits = new Map<number, number>();
const [from, to] = values.window ? values.window.split('-').map(Number) : [-Infinity, Infinity];
let at = profile.startTime;
let total = 0;
profile.samples.forEach((s, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if (at < from! || at > to!) return;
  hits.set(s, (hits.get(s) ?? 0) + 1);
  total++;
});
const label = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, count] of hits) {
  const n = byId.get(id)!;
  self.set(label(n), (self.get(label(n)) ?? 0) + count);
  // Every distinct frame on the stack gets the sample once.
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (!seen.has(l)) inclusive.set(l, (inclusive.get(l) ?? 0) + count);
    seen.add(l);
  }
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (${total} samples)`);
  for (const [l, c] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`${((100 * c) / total).toFixed(1).padStart(5)}%  ${l}`);
};
print('self time', self);
if (values.inclusive) print('total time', inclusive);

if (values.stacks) {
  const stacks = new Map<string, number>();
  for (const [id, count] of hits) {
    const frames: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) frames.push(label(byId.get(cur)!));
    const at = frames.findIndex((f) => f.startsWith(`${values.stacks} `));
    if (at < 0) continue;
    const key = frames.slice(at, at + 8).join('\n    <- ');
    stacks.set(key, (stacks.get(key) ?? 0) + count);
  }
  console.log(`\nstacks through ${values.stacks}`);
  for (const [k, c] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`${((100 * c) / total).toFixed(1)}%  ${k}`);
}

if (values.groups) {
  // First match wins, innermost frame first: gzip's call to crc32 is gzip, a hook's session lookup is a hook.
  const kinds: [string, RegExp][] = [
    ['idle', /^\(idle\)/],
    ['garbage collection', /^\(garbage collector\)/],
    ['encryption', /reader-crypto/],
    ['gzip', /base64-gzip/],
    ['database (kysely, SQLite, repositories)', /kysely|better-sqlite|repositories\/|db\//],
    ['JSON answer (blockBody, blockText)', /blockBody|blockText|templateOf/],
    ['zod', /zod/],
    ['services', /services\//],
    ['routes', /routes\//],
    ["Lectern's hooks, cookies, body parse", /plugins\/|@fastify\/cookie|secure-json|content-type-parser/],
    ['socket write (writev)', /^writev|writevGeneric|_writeGeneric/],
    ['Fastify (routing, reply)', /fastify|find-my-way/],
    ["Node's HTTP and streams", /_http_|node:net|streams|node:events/],
  ];
  const byKind = new Map<string, number>();
  for (const [id, count] of hits) {
    let kind = 'other';
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const found = kinds.find(([, re]) => re.test(label(byId.get(cur)!)));
      if (found) {
        kind = found[0];
        break;
      }
    }
    byKind.set(kind, (byKind.get(kind) ?? 0) + count);
  }
  const busy = total - (byKind.get('idle') ?? 0);
  console.log(`\nby kind of work (${total} samples, ${busy} busy)`);
  for (const [k, c] of [...byKind].sort((a, b) => b[1] - a[1])) {
    console.log(`${((100 * c) / total).toFixed(1).padStart(5)}% of all  ${k === 'idle' ? '      ' : `${((100 * c) / busy).toFixed(1).padStart(5)}% of busy`}  ${k}`);
  }
}
