/**
 * The entry: the app's start in steps, each evaluated in a task of its own (docs/decisions.md "The app's start in
 * steps"). Evaluating the whole start graph (React DOM, the libraries, the app's modules) was one task of 76-88 ms on
 * a desktop CPU, about 300 ms at Lighthouse's mobile CPU x4, all of it Total Blocking Time since the page paints
 * before any script. Here each step is an `import()` of what the next one needs, with the main thread given back
 * between them. The steps' files are named in index.html beside the entry (vite.config.ts, preloadStartSteps), so
 * they are fetched at once as before; only their evaluation is spread.
 */
import { pageFirstScreenSettled } from './app/pageFirstScreenGate.ts';
import { applyStylesheets } from './app/stylesheets.ts';
import './styles/global.css';

/** Gives the main thread back for a task: scheduler.yield where there is one, else a zero timeout. */
const nextTask = (): Promise<void> =>
  (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler?.yield?.() ?? new Promise((resolve) => setTimeout(resolve, 0));

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
// The page's own shell stays on screen until the app's stylesheets apply: nothing renders unstyled. Started now, so
// they apply while the steps run. (A server-rendered screen's page has its rules in it and no such preloads.)
const styled = applyStylesheets(document);

void (async () => {
  // On a long chapter's page, after the page's own first screen: its worker's messages are handled on this thread.
  await pageFirstScreenSettled();
  // React DOM, which is CommonJS and whole anyway. (React Router and react-query, as steps of their own, were
  // imported whole, 40 KB gzip more than the start uses; their evaluation is a few ms, so they stay in the start's.)
  await import('react-dom/client');
  await nextTask();
  const { start } = await import('./app/start.tsx');
  await nextTask();
  start(root, styled);
})();
