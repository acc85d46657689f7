/**
 * Calls run one way (docs/ARCHITECTURE.md): route -> service -> repository, and only repositories hold SQL. These
 * checks read every import of the server's sources (static `import`, `export … from`, and `import()`), so a
 * shortcut fails here rather than in review. Each rule is also run on a source that breaks it on purpose, so a
 * checker that stopped seeing imports would fail too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../src');

interface Source {
  /** relative to packages/server/src, with forward slashes */
  file: string;
  text: string;
}

function allFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? allFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

const tree: Source[] = allFiles(src).map((f) => ({ file: path.relative(src, f).split(path.sep).join('/'), text: fs.readFileSync(f, 'utf8') }));

/** Every module a source names: `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')`. */
function importsOf(text: string): string[] {
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return [...new Set(found)];
}

interface Rule {
  name: string;
  /** the sources the rule is about */
  applies: (file: string) => boolean;
  /** an import they may not have */
  banned: (specifier: string) => boolean;
}

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`) || file === folder;

const RULES: Rule[] = [
  { name: 'routes run no SQL: no kysely, no repositories, no db', applies: under('routes'), banned: (s) => s === 'kysely' || /\/(repositories|db)\//.test(s) },
  { name: 'services hold no SQL and never see a request: no kysely, no Fastify', applies: under('services'), banned: (s) => s === 'kysely' || /^fastify$|^@fastify\//.test(s) },
  { name: 'repositories never import services, routes or plugins', applies: under('repositories'), banned: (s) => /\/(services|routes|plugins)\//.test(s) },
  {
    name: 'migrations import nothing live (only kysely and Node): a migration stays as it was written',
    applies: under('db/migrations'),
    banned: (s) => s !== 'kysely' && !s.startsWith('node:'),
  },
  { name: 'plugins never import repositories', applies: under('plugins'), banned: (s) => /\/repositories\//.test(s) },
  { name: 'storage imports nothing from services (shared helpers live in util/)', applies: under('storage'), banned: (s) => /\/services\//.test(s) },
  { name: 'the first start goes through the services, not the repositories', applies: (f) => f === 'first-start.ts', banned: (s) => /\/(repositories|db)\//.test(s) },
  {
    name: 'SQL only in repositories (and db/, the connection and the migrations): nothing else imports kysely',
    applies: (f) => !under('repositories')(f) && !under('db')(f),
    banned: (s) => s === 'kysely' || s.startsWith('kysely/'),
  },
];

function offenders(sources: Source[], rule: Rule): string[] {
  return sources.filter((s) => rule.applies(s.file)).flatMap((s) => importsOf(s.text).filter(rule.banned).map((i) => `${s.file} imports ${i}`));
}

/** A source breaking each rule, as the checker must see it (a static import, a re-export, a dynamic import). */
const BROKEN: Record<string, Source[]> = {
  [RULES[0]!.name]: [{ file: 'routes/x.ts', text: "import { sql } from 'kysely';" }],
  [RULES[1]!.name]: [{ file: 'services/x.ts', text: "import type { FastifyRequest } from 'fastify';" }],
  [RULES[2]!.name]: [{ file: 'repositories/x.ts', text: "export { fold } from '../services/search.ts';" }],
  [RULES[3]!.name]: [{ file: 'db/migrations/0099_x.ts', text: "const { nameKey } = await import('@lectern/core');" }],
  [RULES[4]!.name]: [{ file: 'plugins/x.ts', text: "import {\n  UsersRepository,\n} from '../repositories/users.ts';" }],
  [RULES[5]!.name]: [{ file: 'storage/x.ts', text: "import '../services/x.ts';" }],
  [RULES[6]!.name]: [{ file: 'first-start.ts', text: "import { x } from './db/database.ts';" }],
  [RULES[7]!.name]: [{ file: 'util/x.ts', text: "export type { Kysely } from 'kysely';" }],
};

/**
 * What loading a source loads before any of its code runs: its static imports of values, followed through the
 * tree (type-only imports are erased; an `import()` waits until it is called).
 */
function loadedAtStart(sources: Source[], entry: string): string[] {
  const byFile = new Map(sources.map((s) => [s.file, s.text]));
  const seen = new Set<string>();
  const visit = (module: string) => {
    if (seen.has(module)) return;
    seen.add(module);
    const text = byFile.get(module);
    if (text === undefined) return;
    const specifiers = [...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^;'"]*?)\s*from\s+['"]([^'"]+)['"]/gms)) {
      const named = /^\{([^}]*)\}$/.exec(m[2]!.trim());
      const typesOnly = named && named[1]!.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '));
      if (!m[1] && !typesOnly) specifiers.push(m[3]!);
    }
    for (const s of specifiers) visit(s.startsWith('.') ? path.posix.join(path.posix.dirname(module), s) : s);
  };
  visit(entry);
  return [...seen];
}

describe('server layering', () => {
  for (const rule of RULES) {
    it(rule.name, () => {
      expect(offenders(tree, rule)).toEqual([]);
      // the same check on a source that breaks the rule on purpose
      expect(offenders(BROKEN[rule.name]!, rule)).toHaveLength(1);
    });
  }

  it('the command line starts without the web server or the libraries only some commands use', () => {
    // docs/performance.md "The command line's start": what `lectern <command>` loads before the command runs
    const unwanted = (loaded: string[]) =>
      loaded.filter((m) => m === 'app.ts' || under('routes')(m) || under('plugins')(m) || /^(fastify|@fastify\/.*|sharp|nodemailer|sanitize-html|postcss|parse5)$/.test(m));
    expect(unwanted(loadedAtStart(tree, 'cli/main.ts'))).toEqual([]);
    expect(unwanted(loadedAtStart(tree, 'build-services.ts'))).toEqual([]);
    // followed through the real tree: the services and what they import
    expect(loadedAtStart(tree, 'build-services.ts')).toEqual(expect.arrayContaining(['services/catalog.ts', 'storage/cover-variants.ts', 'kysely']));
    // the same check where the chain goes through two modules, past a type-only import that is erased
    const broken: Source[] = [
      { file: 'cli/main.ts', text: "import { x } from '../services/x.ts';" },
      { file: 'services/x.ts', text: "import { type A } from '../routes/a.ts';\nimport type { B } from '../app.ts';\nexport { y } from '../util/y.ts';" },
      { file: 'util/y.ts', text: "import Fastify, { type FastifyInstance } from 'fastify';" },
    ];
    expect(unwanted(loadedAtStart(broken, 'cli/main.ts'))).toEqual(['fastify']);
  });

  it('routes hold no sql`` template either', () => {
    for (const { file, text } of tree.filter((s) => under('routes')(s.file))) expect(text, file).not.toMatch(/\bsql`/);
  });

  it('routes and services decide no authorisation themselves: no role flag is read outside policies/ and the account services', () => {
    // docs/ARCHITECTURE.md "Where the rules live": who may read or change what is decided in policies/; the account
    // services only turn roles into flags and back (accounts.ts rolesOf, admin-users.ts)
    const readsRole = (text: string) => /\.(is_admin|is_content_creator|is_preview_creator)\b|\brole\s*===?\s*['"]admin/.test(text);
    const accountServices = new Set(['services/accounts.ts', 'services/admin-users.ts']);
    const deciders = tree.filter((s) => (under('routes')(s.file) || under('plugins')(s.file) || under('services')(s.file)) && !accountServices.has(s.file));
    expect(deciders.filter((s) => readsRole(s.text)).map((s) => s.file)).toEqual([]);
    expect(readsRole("if (!user.is_admin) throw new AppError(403, 'no');")).toBe(true);
  });

  it('only repositories/conflicts.ts reads an engine\'s errors (its error codes, or a message saying "unique")', () => {
    const readers = tree
      .filter((s) => !s.file.startsWith('db/migrations/') && s.file !== 'repositories/conflicts.ts')
      .filter((s) => /23505|SQLITE_CONSTRAINT|unique\|duplicate/i.test(s.text))
      .map((s) => s.file);
    expect(readers).toEqual([]);
  });
});
