/**
 * The app's first render, as a transition (docs/decisions.md "Each screen's first answers in its page, its chunks named
 * with it, renders in slices"): React renders a transition in slices, giving the main thread back about every 5 ms,
 * where `root.render` alone renders the whole tree in one task. Since index.html paints the shell without script
 * (docs/decisions.md "The first screen's data in the page, a first paint without script"), every task of the app's
 * start comes after the first paint and counts in Total Blocking Time: one task of the whole first render was a long
 * task of its own on a phone (Lighthouse's CPU x4). What is shown is the same; the page's own skeleton stays until the
 * render commits.
 */
import { startTransition, type ReactNode } from 'react';
import { createRoot, hydrateRoot, type HydrationOptions, type Root } from 'react-dom/client';

export function renderApp(container: Element, app: ReactNode): Root {
  const root = createRoot(container);
  startTransition(() => root.render(app));
  return root;
}

/**
 * A first screen the server rendered (app/firstScreen.ts) is hydrated, not rendered again: as a transition too, so
 * the hydration runs in slices (outside one, a root's first hydration is done in one task).
 */
export function hydrateApp(container: Element, app: ReactNode, options?: HydrationOptions): Root {
  let root: Root | undefined;
  startTransition(() => {
    root = hydrateRoot(container, app, options);
  });
  return root!;
}
