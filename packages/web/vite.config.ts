import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import react from '@vitejs/plugin-react';
import type { ChunkingContext, CodeSplittingGroup } from 'rolldown';
import { defineConfig, type Plugin, type ProxyOptions } from 'vite';
import { ROUTE_MODULES } from './src/app/routeModules.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const target = process.env.LECTERN_API ?? 'http://127.0.0.1:8080';

/** API calls go to the server; everything else (including GET /login/) is the single-page app. */
const api: ProxyOptions = { target, changeOrigin: false };

/** /login/ and /logout/: the server takes the posts, the SPA answers the page loads. */
const postsOnly: ProxyOptions = {
  target,
  changeOrigin: false,
  bypass: (req: IncomingMessage) => (req.method === 'GET' || req.method === 'HEAD' ? '/index.html' : undefined),
};

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Brotli and gzip copies of the built text assets beside them, which the server sends as they are (its static
 * files have preCompressed on): compressed once at the highest levels, not on every request. Source maps are left
 * out (only developer tools fetch them), and so are files too small to gain.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'lectern-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      const assets = path.join(outDir, 'assets');
      const files = (await fs.readdir(assets)).filter((f) => /\.(m?js|css|svg|json)$/.test(f));
      await Promise.all(
        files.map(async (f) => {
          const file = path.join(assets, f);
          const raw = await fs.readFile(file);
          if (raw.length < 1024) return;
          const [br, gz] = await Promise.all([
            brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
            gzip(raw, { level: 9 }),
          ]);
          await Promise.all([fs.writeFile(`${file}.br`, br), fs.writeFile(`${file}.gz`, gz)]);
        }),
      );
    },
  };
}

const SCHEMAS_ID = path.join(root, 'src/api/schemas.ts');
/** What every schema module imports to build its schemas on first use; alone it would be one more preloaded file. */
const LAZY_SCHEMA_ID = path.join(root, '../core/src/lazy-schema.ts');

/**
 * One chunk for the schemas the client loads on its first request (src/api/schemas.ts): that module, zod, and every
 * core module that imports zod or another such module, less the console's (admin*.ts, which travel in its own chunk).
 * By default the bundler split them into eight files, one per core module a page also imports, and all eight were
 * preloaded with the entry: a further round of requests before the first paint (FCP 1.08-1.23x of 02e7e48,
 * docs/performance.md; docs/decisions.md "The client's schemas in one chunk"). The entry takes no name from such a
 * module (test/entry-graph.test.ts), so it never imports this chunk and zod stays off the start path. The group's other
 * imports (zod-free core modules) are left where the bundler puts them (`includeDependenciesRecursively: false`):
 * followed, they would bring the entry's own modules in. Core's index.ts only re-exports: the tree-shaker drops it.
 */
function schemasGroup(): CodeSplittingGroup {
  const inGroup = new Map<string, boolean>();
  const core = path.join(root, '../core/src') + path.sep;
  const zod = `${path.sep}node_modules${path.sep}zod${path.sep}`;
  const test = (id: string, ctx: ChunkingContext, seen: Set<string>): boolean => {
    const known = inGroup.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return false;
    seen.add(id);
    let yes = id === SCHEMAS_ID || id === LAZY_SCHEMA_ID || id.includes(zod);
    if (!yes && id.startsWith(core) && !/[\\/](index|admin[^\\/]*)\.ts$/.test(id)) {
      yes = (ctx.getModuleInfo(id)?.importedIds ?? []).some((d) => d.includes(zod) || (d.startsWith(core) && test(d, ctx, seen)));
    }
    inGroup.set(id, yes);
    return yes;
  };
  return {
    name: (id, ctx) => (test(id, ctx, new Set()) ? 'schemas' : null),
    includeDependenciesRecursively: false,
  };
}

const START_ID = path.join(root, 'src/app/start.tsx');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
/** React DOM and what it imports, which src/main.tsx evaluates as its first step (React's JSX runtime is the start's). */
const FIRST_STEP = /[\\/]node_modules[\\/](react-dom|scheduler|react[\\/](index\.js|cjs[\\/]react\.production\.js))/;
/** The entry's own modules (src/main.tsx and what it imports statically): not the start's, though the start imports one. */
const ENTRY_IDS = new Set(['src/main.tsx', 'src/app/stylesheets.ts', 'src/app/pageFirstScreenGate.ts', 'src/styles/global.css'].map((f) => path.join(root, f)));

/**
 * One chunk for the API client and the zod-free core modules the start loads, which the bundler otherwise cuts into a
 * chunk per set of pages sharing them: each new importer cut off another file of every page's first burst
 * (e2e/first-burst.e2e.ts; f14a4f8's reader start from the page took `client.ts` and core's `reader.ts` into the
 * entry's graph, two more files). Every page loads all of it anyway, so nothing is downloaded twice or in vain. They
 * import only core (and Vite's preload helper, which stays in the entry: the entry's steps use it first), so the chunk
 * imports nothing of the app's. The zod ones stay in the schemas chunk: the group before this one takes them first.
 */
function startClientGroup(): CodeSplittingGroup {
  const dirs = [path.join(root, '../core/src') + path.sep, path.join(root, 'src/api') + path.sep];
  return {
    name: 'client',
    tags: ['$initial'],
    test: (id) => dirs.some((d) => id.startsWith(d)),
    // (Vite's preload helper, which client.ts imports, stays with the entry, whose steps use it first)
    includeDependenciesRecursively: false,
  };
}

/**
 * One chunk for the app's own modules of its start (src/app/start.tsx's static graph: the shell, the router, the
 * catalog, the cards every list renders): evaluated as one step (main.tsx), loaded by every page. Left to the bundler,
 * the modules a page shares with it became a dozen small chunks (TitleGrid, Card, Cover, Modal...), each one more file
 * in every page's first burst (e2e/first-burst.e2e.ts), as router.tsx says of the catalog.
 */
function startAppGroup(): CodeSplittingGroup {
  const src = path.join(root, 'src') + path.sep;
  return {
    name: 'start',
    tags: ['$initial'],
    // and the libraries only the start imports (React Router, react-query, React's JSX runtime), which the bundler
    // otherwise cut into five more files; not React and React DOM, the entry's first step
    test: (id) => (id.startsWith(src) || (id.includes(NODE_MODULES) && !FIRST_STEP.test(id))) && !ENTRY_IDS.has(id),
    includeDependenciesRecursively: false,
  };
}

type Bundle = Record<string, { type: string; fileName: string; isEntry?: boolean; facadeModuleId?: string | null; imports?: string[]; dynamicImports?: string[] }>;

/** The page's entry (index.html's script, src/main.tsx), not the start's own entry (src/app/start.tsx). */
const isPageEntry = (c: Bundle[string]): boolean => c.type === 'chunk' && !!c.isEntry && !!c.facadeModuleId && c.facadeModuleId !== START_ID;

/**
 * The chunks every page loads at its start: the entry's static imports, and those of its start steps, the entry's own
 * `import()`s (src/main.tsx evaluates the start in steps, docs/decisions.md "The app's start in steps"), which
 * index.html names beside it (preloadStartSteps). Nothing else the app loads on demand is named there.
 */
function startChunks(bundle: Bundle): Set<string> {
  const initial = new Set<string>();
  const walk = (f: string) => {
    const c = bundle[f];
    if (initial.has(f) || c?.type !== 'chunk') return;
    initial.add(f);
    (c.imports ?? []).forEach(walk);
  };
  for (const c of Object.values(bundle)) {
    if (!isPageEntry(c)) continue;
    walk(c.fileName);
    (c.dynamicImports ?? []).forEach(walk);
  }
  return initial;
}

/**
 * The chunks of the entry's start steps (src/main.tsx) and their stylesheets, named in index.html as the entry's own
 * static imports are: fetched at once with it, at the same (low) priority, not asked for as each step begins (a round
 * trip each on a phone). The stylesheets as the entry's are, preloads that main.tsx applies before the first render
 * (lazyStylesheets); the steps' `import()`s preload nothing more themselves (build.modulePreload below).
 */
let entryFile = '';

function preloadStartSteps(): Plugin {
  return {
    name: 'lectern-preload-start-steps',
    apply: 'build',
    // before Vite writes each `import()`'s preloads (build.modulePreload.resolveDependencies asks which file is the entry)
    generateBundle: {
      order: 'pre',
      handler(_options, bundle) {
        entryFile = Object.values(bundle as unknown as Bundle).find(isPageEntry)?.fileName ?? '';
      },
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = (ctx.bundle ?? {}) as unknown as Bundle;
        const named = new Set([...html.matchAll(/\s(?:src|href)="\/([^"]+)"/g)].map((m) => m[1]!));
        const files = [...startChunks(bundle)].filter((f) => !named.has(f));
        const css = files.flatMap((f) => [...(((bundle[f] as { viteMetadata?: { importedCss: Set<string> } }).viteMetadata?.importedCss) ?? [])]).filter((f) => !named.has(f));
        return [
          ...files.map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `/${f}` }, injectTo: 'head' as const })),
          ...[...new Set(css)].map((f) => ({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: '', href: `/${f}` }, injectTo: 'head' as const })),
        ];
      },
    },
  };
}

/**
 * The schemas chunk is fetched alongside the entry, not after it: every screen's first answer waits for it, and
 * asked for only once the entry has run it came a round trip late. It is still evaluated on the first request.
 * One file (schemasGroup), and what it imports is the entry's, loaded anyway.
 */
function preloadSchemas(): Plugin {
  return {
    name: 'lectern-preload-schemas',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle ?? {};
        const chunk = Object.values(bundle).find((c) => c.type === 'chunk' && c.moduleIds.includes(SCHEMAS_ID));
        if (!chunk || chunk.type !== 'chunk') throw new Error('no chunk holds src/api/schemas.ts');
        const initial = startChunks(bundle as unknown as Bundle);
        // The chunk and whatever it imports that the entry does not load anyway (nothing, while the group holds).
        const files = [chunk.fileName, ...chunk.imports.filter((f) => !initial.has(f))];
        return files.map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `/${f}` }, injectTo: 'head' as const }));
      },
    },
  };
}

/** Marks the stylesheets the entry brings, which main.tsx applies (applyStylesheets) before its first render. */
const LAZY_CSS_ATTRIBUTE = 'data-lectern-css';

/**
 * The entry's stylesheets do not hold the first paint (docs/decisions.md "The first screen's data in the page, a first
 * paint without script, answers compressed": three render-blocking stylesheets, 160-570 ms of FCP each in the reports):
 * index.html draws the shell with its own inline styles, and its stylesheet links become preloads, fetched at once at
 * the same priority, which main.tsx turns into stylesheets and waits for before React renders anything they style. No
 * inline script or `onload` attribute: the CSP allows neither.
 */
function lazyStylesheets(): Plugin {
  return {
    name: 'lectern-lazy-stylesheets',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        return html.replace(/<link rel="stylesheet"([^>]*)>/g, (tag, attrs: string) =>
          /href="\/assets\//.test(attrs) ? `<link rel="preload" as="style"${attrs} ${LAZY_CSS_ATTRIBUTE}>` : tag,
        );
      },
    },
  };
}

/**
 * The start files (the entry, the chunks and stylesheets preloaded beside it) are asked for with
 * `fetchpriority="low"`: none of them holds the first paint, which index.html draws with its own inline styles
 * (docs/decisions.md "The start files at low priority"). At the default priority (High for a module, VeryHigh for a
 * style preload), Chromium and Lighthouse took them for render-blocking: whenever they arrived before the first frame
 * (a loaded machine, a warm cache), Lighthouse's simulated FCP counted every one of them, 2.0-2.7 s instead of
 * 0.6-0.8 s (docs/performance.md, "Lighthouse"). The server marks a route's own preloads the same way
 * (routes/web.ts routePagesOf). Nothing else on the page competes with them: the one image preload, the first
 * cover, is its own `fetchpriority="high"`.
 */
const LOW_PRIORITY = 'fetchpriority="low"';

function startFilesAtLowPriority(): Plugin {
  return {
    name: 'lectern-start-files-at-low-priority',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        let marked = 0;
        const out = html.replace(/<(script type="module"|link rel="modulepreload"|link rel="preload" as="style")([^>]*)>/g, (tag, kind: string, attrs: string) => {
          if (!/\s(?:src|href)="\/assets\//.test(attrs) || /fetchpriority=/.test(attrs)) return tag;
          marked++;
          return `<${kind}${attrs} ${LOW_PRIORITY}>`;
        });
        if (!/<script type="module"[^>]*fetchpriority="low"/.test(out)) throw new Error('index.html: the entry script was not marked low priority');
        return marked > 0 ? out : html;
      },
    },
  };
}

/**
 * route-preloads.json beside index.html: for each address pattern of src/app/routeModules.ts, its page module's
 * chunk, the chunks it imports that the entry does not, and the stylesheets they bring (not those the entry loads).
 * The server names them in that address's index.html (packages/server/src/routes/web.ts), so a deep link fetches
 * its page's code with the entry.
 */
function routePreloads(): Plugin {
  return {
    name: 'lectern-route-preloads',
    apply: 'build',
    // after Vite's own (it drops the chunks that only carried a stylesheet, which other chunks still list)
    generateBundle: { order: 'post', handler(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      // What every page loads anyway (the entry's static imports, the stylesheets they bring): never named again.
      const initial = startChunks(bundle as unknown as Bundle);
      const walk = (file: string) => {
        if (initial.has(file)) return;
        initial.add(file);
        for (const f of byFile.get(file)?.imports ?? []) walk(f);
      };
      // and the schemas chunk, which index.html names for every page (preloadSchemas)
      const schemas = chunks.find((c) => c.moduleIds.includes(SCHEMAS_ID));
      if (schemas) walk(schemas.fileName);
      const cssOf = (files: Iterable<string>) =>
        [...files].flatMap((f) => [...((byFile.get(f) as { viteMetadata?: { importedCss: Set<string> } } | undefined)?.viteMetadata?.importedCss ?? [])]);
      const initialCss = new Set(cssOf(initial));
      const out: Record<string, { js: string[]; css: string[] }> = {};
      for (const { path: pattern, module } of ROUTE_MODULES) {
        const chunk = chunks.find((c) => c.facadeModuleId?.replaceAll('\\', '/').endsWith(`/web/${module}`));
        if (!chunk) this.error(`routeModules.ts names ${module}, which is no chunk of its own: router.tsx must load it on demand`);
        // The page's chunk and the chunks it imports that the entry does not load, with their stylesheets: the page
        // renders nothing before all of them have run, and named only by the page's chunk they were asked for once the
        // entry had run and routed, a chained round trip before the screen's first content (docs/decisions.md "Each
        // screen's first answers in its page, its chunks named with it, renders in slices"). Since the first paint
        // needs no script (index.html), they no longer hold it up; once they held the entry's own files back (the
        // playlists area named ten files with the entry's: Lighthouse mobile 73 against 84 on its page,
        // docs/performance.md), listed after the entry's they come after them.
        const own: string[] = [];
        const walkOwn = (file: string) => {
          if (initial.has(file) || own.includes(file) || !byFile.has(file)) return;
          own.push(file);
          for (const f of byFile.get(file)?.imports ?? []) walkOwn(f);
        };
        walkOwn(chunk.fileName);
        out[pattern] = { js: own.map((f) => `/${f}`), css: [...new Set(cssOf(own))].filter((f) => !initialCss.has(f)).map((f) => `/${f}`) };
      }
      this.emitFile({ type: 'asset', fileName: 'route-preloads.json', source: JSON.stringify(out, null, 1) });
    } },
  };
}

/**
 * The server's renderer of a first screen (src/ssr.tsx; docs/decisions.md "The first screen rendered on the
 * server"): `vite build --ssr` into dist/ssr/, after the browser's build (package.json). Self-contained (every
 * dependency bundled): the server loads it from wherever the build is, with no loader and no node_modules beside it.
 */
const ssrBuild = {
  plugins: [react()],
  // the icons and such are the browser build's to copy, into dist/ itself
  publicDir: false as const,
  ssr: { noExternal: true },
  build: {
    outDir: fileURLToPath(new URL('./dist/ssr', import.meta.url)),
    emptyOutDir: false,
    sourcemap: 'hidden' as const,
    target: 'node20',
    rolldownOptions: { input: path.join(root, 'src/ssr.tsx'), output: { entryFileNames: 'ssr.js' } },
  },
};

/**
 * The core package is pure (DESIGN.md: no Node or DOM imports, no side effects): a chunk that uses only its formatting
 * rules and paths must not pull in its zod schemas, which the client loads on demand.
 */
const CORE_IS_PURE = { moduleSideEffects: [{ test: /[\\/]packages[\\/]core[\\/]src[\\/]/, sideEffects: false }] };

export default defineConfig(({ isSsrBuild }) => ({
  root,
  ...(isSsrBuild
    ? ssrBuild
    : {
        plugins: [react(), precompress(), preloadStartSteps(), preloadSchemas(), routePreloads(), lazyStylesheets(), startFilesAtLowPriority()],
        build: {
          outDir: fileURLToPath(new URL('./dist', import.meta.url)),
          emptyOutDir: true,
          // Written for whoever reads a stack trace on the machine, never referenced from the bundle nor served.
          sourcemap: 'hidden' as const,
          target: 'es2022',
          modulePreload: {
            // The entry's start steps (src/main.tsx) are named in index.html (preloadStartSteps): their `import()`s
            // preload nothing again, nor add their stylesheets, which main.tsx applies itself.
            resolveDependencies: (_file: string, deps: string[], { hostType, hostId }: { hostType: string; hostId: string }) =>
              hostType === 'js' && hostId === entryFile ? [] : deps,
          },
          rolldownOptions: {
            // The start (src/app/start.tsx) is an entry of its own, which main.tsx imports as its last step: what it
            // imports statically is `$initial` for the groups below, as the entry's graph was before the steps.
            input: { index: path.join(root, 'index.html'), start: START_ID },
            preserveEntrySignatures: 'allow-extension',
            output: { codeSplitting: { groups: [schemasGroup(), startClientGroup(), startAppGroup()] } },
            treeshake: CORE_IS_PURE,
          },
        },
      }),
  // The chapter worker's own code, and a chunk of its client's schemas (zod, half of what it was as one file), which
  // its client loads beside its first answer: the page's first screen is painted before the answer's schema check
  // (chapter.worker.ts firstScreenUnchecked), so it waits for neither. Core pure here too: the worker uses its cipher
  // and paths, not the account's, the console's or the annotations' modules. (The chunk imports what it shares from the
  // worker's own file, by that file's address: the worker is always started at that address, so it is the module
  // already running, not a second one.)
  worker: { format: 'es' as const, rolldownOptions: { treeshake: CORE_IS_PURE } },
  server: {
    proxy: {
      '^/api/': api,
      '^/u(/|$)': api,
      '^/nest/': api,
      '^/healthz': api,
      '^/login/?$': postsOnly,
      '^/logout/?$': postsOnly,
    },
  },
  preview: {
    proxy: {
      '^/api/': api,
      '^/u(/|$)': api,
      '^/nest/': api,
      '^/healthz': api,
      '^/login/?$': postsOnly,
      '^/logout/?$': postsOnly,
    },
  },
}));
