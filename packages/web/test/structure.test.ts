/**
 * The web app's layering (DESIGN.md "The house"): `app/` composes; a feature imports `components/`, `api/`,
 * `shared/`, core and its own files, never another feature or `app/`; `shared/` and `components/` import no
 * feature and not `app/`; static imports form no cycle. Checked by reading every import of packages/web/src.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'src');

/** Value imports and re-exports (type-only ones vanish at build time)... */
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
/** ...and `import()`: a module loaded on demand still depends on its loader's module graph when it imports back. */
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

export function importsOf(file: string, source: string): string[] {
  return [...source.matchAll(IMPORT), ...source.matchAll(DYNAMIC)].map((m) => normalize(join(dirname(file), m[1]!)));
}

/** What a module may import, by where it lives; returns the broken rules. */
export function layeringProblems(graph: Map<string, string[]>): string[] {
  const area = (path: string) => {
    const [top, name] = path.split('/');
    return top === 'features' ? `features/${name}` : top!;
  };
  const allowed: Record<string, (target: string) => boolean> = {
    app: () => true,
    api: (t) => t === 'api',
    components: (t) => t === 'components',
    shared: (t) => ['shared', 'components', 'api'].includes(t),
  };
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const own = area(from);
    for (const to of targets) {
      const theirs = area(to);
      const ok = own.startsWith('features/')
        ? theirs === own || ['components', 'api', 'shared'].includes(theirs)
        : (allowed[own]?.(theirs) ?? true);
      if (!ok) problems.push(`${from} imports ${to}`);
    }
  }
  return problems;
}

/** Each cycle once, as the list of modules around it. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        const file = relative(SRC, path);
        graph.set(
          file,
          importsOf(file, readFileSync(path, 'utf8')).filter((t) => /\.tsx?$/.test(t)),
        );
      }
    }
  };
  walk(SRC);
  return graph;
}

describe('web structure', () => {
  it('finds a feature importing another feature or app/, and a cycle', () => {
    const bad = new Map([
      ['features/playlists/PlaylistsArea.tsx', ['app/router.tsx', 'features/account/useSession.ts', 'components/Menu.tsx']],
      ['app/router.tsx', ['features/playlists/PlaylistsArea.tsx']],
      ['features/account/useSession.ts', []],
      ['components/Menu.tsx', ['shared/links.ts']],
      ['shared/links.ts', []],
    ]);
    expect(layeringProblems(bad)).toEqual([
      'features/playlists/PlaylistsArea.tsx imports app/router.tsx',
      'features/playlists/PlaylistsArea.tsx imports features/account/useSession.ts',
      'components/Menu.tsx imports shared/links.ts',
    ]);
    expect(cycles(bad)).toEqual([['features/playlists/PlaylistsArea.tsx', 'app/router.tsx', 'features/playlists/PlaylistsArea.tsx']]);
    expect(
      importsOf('features/a/x.ts', "import type { T } from '../b/y.ts';\nimport { v } from '../b/z.ts';\nimport './x.css';\nexport { w } from '../../app/w.ts';\nconst l = () => import('./lazy.tsx');"),
    ).toEqual(['features/b/z.ts', 'features/a/x.css', 'app/w.ts', 'features/a/lazy.tsx']);
  });

  it('holds for packages/web/src: features import only components/, api/, shared/ and their own files; no cycles', () => {
    const graph = sourceGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph)).toEqual([]);
    expect(layeringProblems(graph)).toEqual([]);
  });
});
