/**
 * Reads a V8 heap snapshot (node --heapsnapshot-signal, e.g. bench/library-scale.ts --mix with HEAP_SNAPSHOT=dir)
 * and prints what holds the memory: self size summed by node type and constructor name (strings together, arrays
 * by kind), the largest first, with their counts. A summary of the heap, not of RSS: native memory (SQLite's page
 * cache, pg's buffers, malloc) is outside it.
 * Usage: npx tsx bench/heap-top.ts file.heapsnapshot [--top 30]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' } } });
const snapshot = JSON.parse(fs.readFileSync(positionals[0]!, 'utf8')) as {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
};
const fields = snapshot.snapshot.meta.node_fields;
const types = snapshot.snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
const width = fields.length;
const groups = new Map<string, { bytes: number; count: number }>();
let total = 0;
for (let i = 0; i < snapshot.nodes.length; i += width) {
  const type = types[snapshot.nodes[i + typeAt]!]!;
  const size = snapshot.nodes[i + sizeAt]!;
  total += size;
  const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(strings)' : `${type} ${snapshot.strings[snapshot.nodes[i + nameAt]!]!.slice(0, 60)}`;
  const g = groups.get(name) ?? { bytes: 0, count: 0 };
  g.bytes += size;
  g.count++;
  groups.set(name, g);
}
console.log(`heap ${(total / 1e6).toFixed(1)} MB in ${snapshot.nodes.length / width} nodes`);
for (const [name, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top))) {
  console.log(`${(g.bytes / 1e6).toFixed(1).padStart(8)} MB ${String(g.count).padStart(9)}  ${name}`);
}
