/**
 * The entry's static graph carries no zod (docs/performance.md "What costs the mobile score now"): every
 * core name the modules of that graph import must be defined in a core module that, with everything it imports,
 * is zod-free. Otherwise the bundler puts that module (and zod, and the schemas beside it) in a chunk the entry
 * imports, and all of it is downloaded and evaluated before the first paint, though the client's schemas are meant
 * to load with the first request (src/api/schemas.ts, on demand). A build places whole modules in chunks, so one
 * path constant in search.ts was enough to bring zod in (entry graph 510 KB raw, 162 KB gzip; 398 / 130 without).
 *
 * Read from the sources with the TypeScript parser: value imports and re-exports only (type-only ones vanish at
 * build time); `import()` is where the graph stops, as it does for the bundler.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const WEB_SRC = join(__dirname, '..', 'src');
const CORE_SRC = join(__dirname, '..', '..', 'core', 'src');

interface Parsed {
  /** static value imports: specifier -> the names taken (['*'] for a namespace or a side-effect import) */
  imports: { from: string; names: string[] }[];
  /** names declared and exported here */
  own: Set<string>;
  /** `export { a, b } from './x'` and `export * from './x'` */
  reexports: { from: string; names: string[] | '*' }[];
}

const cache = new Map<string, Parsed>();

function parse(file: string): Parsed {
  const hit = cache.get(file);
  if (hit) return hit;
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: Parsed = { imports: [], own: new Set(), reexports: [] };
  const exported = (n: ts.Node) => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      const names: string[] = [];
      if (!clause) names.push('*');
      else {
        if (clause.name) names.push('default');
        const b = clause.namedBindings;
        if (b && ts.isNamespaceImport(b)) names.push('*');
        if (b && ts.isNamedImports(b)) for (const el of b.elements) if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      }
      if (names.length) out.imports.push({ from: st.moduleSpecifier.text, names });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (st.isTypeOnly) continue;
      const clause = st.exportClause;
      if (!clause) out.reexports.push({ from: st.moduleSpecifier.text, names: '*' });
      else if (ts.isNamedExports(clause)) {
        const names = clause.elements.filter((el) => !el.isTypeOnly).map((el) => (el.propertyName ?? el.name).text);
        out.reexports.push({ from: st.moduleSpecifier.text, names });
        out.imports.push({ from: st.moduleSpecifier.text, names });
      }
    } else if (exported(st)) {
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) out.own.add(d.name.text);
      if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) out.own.add(st.name.text);
    }
  }
  cache.set(file, out);
  return out;
}

const resolve = (from: string, spec: string) => {
  const p = normalize(join(dirname(from), spec));
  return [p, `${p}.ts`, `${p}.tsx`].find((f) => /\.tsx?$/.test(f) && existsSync(f));
};

/** The core module that defines `name`, following index.ts's `export *` and explicit re-exports. */
function definer(file: string, name: string, seen = new Set<string>()): string | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const m = parse(file);
  if (m.own.has(name)) return file;
  for (const r of m.reexports) {
    if (r.names !== '*' && !r.names.includes(name)) continue;
    const target = resolve(file, r.from);
    const found = target && definer(target, name, seen);
    if (found) return found;
  }
  return undefined;
}

/** Does this core module, or any core module it imports statically, import zod? Returns the path to it. */
function zodPath(file: string, seen = new Set<string>()): string[] | null {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const i of parse(file).imports) {
    if (i.from === 'zod' || i.from.startsWith('zod/')) return [file];
    const target = i.from.startsWith('.') ? resolve(file, i.from) : undefined;
    const deeper = target && zodPath(target, seen);
    if (deeper) return [file, ...deeper];
  }
  return null;
}

/** The web modules the entry (src/main.tsx) and its start (src/app/start.tsx) reach by static imports, and the core names each takes. */
function entryGraph() {
  const modules = new Set<string>();
  const coreNames: { name: string; by: string }[] = [];
  const walk = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const i of parse(file).imports) {
      if (i.from === '@lectern/core') for (const name of i.names) coreNames.push({ name, by: relative(WEB_SRC, file) });
      else if (i.from.startsWith('.')) {
        const target = resolve(file, i.from);
        if (target) walk(target);
      }
    }
  };
  walk(join(WEB_SRC, 'main.tsx'));
  // and the start's last step, which main.tsx imports (docs/decisions.md "The app's start in steps"): its static graph
  // is loaded and evaluated at every page's start as the entry's own was
  walk(join(WEB_SRC, 'app', 'start.tsx'));
  return { modules, coreNames };
}

describe("the entry's static graph", () => {
  it('takes from @lectern/core only names whose modules import no zod', () => {
    const { modules, coreNames } = entryGraph();
    // the walk found the app (a parse that stopped at main.tsx would pass for nothing)
    expect(modules.size).toBeGreaterThan(30);
    expect(coreNames.length).toBeGreaterThan(30);
    const index = join(CORE_SRC, 'index.ts');
    const problems: string[] = [];
    for (const { name, by } of coreNames) {
      const def = definer(index, name);
      if (!def) {
        problems.push(`${by}: ${name} is not found in @lectern/core`);
        continue;
      }
      const chain = zodPath(def);
      if (chain) problems.push(`${by}: ${name} (${[...chain.map((f) => relative(CORE_SRC, f)), 'zod'].join(' -> ')})`);
    }
    expect(problems).toEqual([]);
  });

  it('the check sees zod where a core module brings it', () => {
    // the schemas module itself, and a name defined beside schemas: what the test above must catch
    expect(zodPath(join(CORE_SRC, 'schemas.ts'))).not.toBeNull();
    expect(zodPath(definer(join(CORE_SRC, 'index.ts'), 'catalogSearchQuerySchema')!)).not.toBeNull();
    // a name re-exported by search.ts resolves to the zod-free module that defines it
    expect(relative(CORE_SRC, definer(join(CORE_SRC, 'search.ts'), 'snippetText')!)).toBe('snippets.ts');
  });
});
