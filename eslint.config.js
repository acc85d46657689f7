// ESLint (flat config): `npm run lint`, run by scripts/test-all.sh before the tests. ESLint's and typescript-eslint's
// recommended sets and React's rules of hooks everywhere; on the sources and tests of core, the server and the web app
// also four rules that read the types (TypeScript's project service: each file checked with its package's tsconfig.json).
// docs/decisions.md "A linter in the test run" says why these four and how their findings were met.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // what .gitignore leaves out (a local install's data/ holds books' own scripts), and declaration files
  { ignores: ['**/dist/**', '**/node_modules/**', '.tmp/**', 'data/**', 'coverage/**', 'test-results/**', 'bench/results/**', 'bench/.anchor-ingest-*/**', '**/*.d.ts'] },
  // directives for rules that are off for now stay, for the day those rules are on
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` says "unused on purpose" (a parameter a signature needs)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // The sanitisers, parsers and address checks match control characters on purpose (NUL, C0, tab and newline).
      'no-control-regex': 'off',
      // Off for now: it flags a default given before a try block that may replace it (13 places when it was tried);
      // docs/decisions.md "A linter in the test run".
      'no-useless-assignment': 'off',
    },
  },
  {
    // A promise nobody awaits loses its error (an unhandled rejection ends the server process); a promise where a
    // function that returns nothing is wanted (an event handler, a callback) is not awaited by its caller; `await` on
    // what is not a promise, and an `as` that changes nothing, say something false to the next reader. Where a
    // promise is left to run on purpose it is written `void p` with the reason beside it; in the web app an event
    // handler that awaits is `(e) => void handler(e)`, its failure caught and shown inside it.
    // (web/src/app/navigate.d.ts: under <BrowserRouter> `navigate()` returns nothing, so it is no floating promise.)
    files: ['packages/{core,server}/{src,test}/**/*.ts', 'packages/web/{src,test}/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    files: ['**/*.mjs', 'scripts/**/*.js', '.ci/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['packages/web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // An effect's dependencies as it reads them; a deliberate exception is a disable on its line with the reason
      // (docs/decisions.md "A linter in the test run").
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
