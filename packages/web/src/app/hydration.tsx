/**
 * When the app's first screen is live, and what was done before (docs/decisions.md "The first screen rendered on the
 * server"). A server-rendered screen is hydrated in more than one commit: the root's first, then each Suspense
 * boundary the server rendered (the pages' `deferred` boundary in router.tsx) in a commit of its own. So:
 * - at the root's commit, the fields outside boundaries (the header's search box) take what was typed into them
 *   (app/earlyInput.ts), before any later render of theirs sets the DOM back to React's value;
 * - once every boundary (HydrationBoundary) has committed too, the fields inside them take theirs, the kept keys
 *   go through the shortcut registry once (the page's own keys, the home's J/K, are bound by then), and the document
 *   element gets `data-hydrated`: the mark the e2e tests wait on before they use a server-rendered screen.
 * A page the browser renders itself (no server HTML) gets the same mark at its first commit with its page in it.
 */
import { Suspense, useEffect, useState, type ReactNode } from 'react';
import { shortcuts } from '../shared/shortcuts/registry.ts';
import { type EarlyInput, fieldsOf, replayKeys, takeEarlyInput, takeIntoState } from './earlyInput.ts';

/** On the document element once the first screen is hydrated (or rendered) whole. */
export const HYDRATED_ATTRIBUTE = 'data-hydrated';

const state = { root: false, pending: 0, done: false, early: null as EarlyInput | null };

/** The mark and the tracker as at page load (tests render several apps in one document). */
export function resetHydration(): void {
  Object.assign(state, { root: false, pending: 0, done: false, early: null });
  document.documentElement.removeAttribute(HYDRATED_ATTRIBUTE);
}

const container = () => document.getElementById('root') ?? document.body;

/**
 * Once the commit's effects are all done, StrictMode's second run of them included (in development it runs each
 * effect's cleanup and the effect again right after the commit: a search box's cleanup would cancel the suggestion
 * request its onChange had just started). Before any render: updates made in effects are rendered in a later task.
 */
const afterEffects = (work: () => void) => queueMicrotask(work);

function finishIfWhole() {
  if (state.done || !state.root || state.pending > 0) return;
  state.done = true;
  const early = state.early ?? { keys: [], fields: [] };
  state.early = null;
  takeIntoState(
    fieldsOf(container())
      .filter((f) => f.inBoundary)
      .map((f) => f.field),
    early.fields,
  );
  replayKeys(early.keys, shortcuts.dispatch);
  document.documentElement.setAttribute(HYDRATED_ATTRIBUTE, 'true');
}

/** Around the whole app (App.tsx), on both sides: its effect runs after every other of the root's commit. */
export function HydrationRoot({ children }: { children: ReactNode }) {
  useEffect(() => {
    if (state.root) return;
    state.root = true;
    // taken now: from here the app's own listeners answer, and what was kept waits for the boundaries
    state.early = takeEarlyInput();
    afterEffects(() => {
      takeIntoState(
        fieldsOf(container())
          .filter((f) => !f.inBoundary)
          .map((f) => f.field),
        state.early?.fields,
      );
      finishIfWhole();
    });
  }, []);
  return children;
}

interface Part {
  counted: boolean;
  committed: boolean;
}

/** Its effect runs after those of everything before it in the boundary: the boundary's content has committed. */
function Committed({ part }: { part: Part }) {
  useEffect(() => {
    if (part.committed) return;
    part.committed = true;
    if (!part.counted) return;
    part.counted = false;
    state.pending--;
    afterEffects(finishIfWhole);
  }, [part]);
  return null;
}

/**
 * A Suspense boundary the first screen waits for: counted at the root's commit while its content has not
 * committed (the server rendered it: React hydrates it later), no longer counted once it has, or once it is gone
 * (a page that failed: the shell's error boundary took its place).
 */
export function HydrationBoundary({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  const [part] = useState<Part>(() => ({ counted: false, committed: false }));
  useEffect(() => {
    if (state.done || part.committed || part.counted) return;
    part.counted = true;
    state.pending++;
    return () => {
      if (!part.counted) return;
      part.counted = false;
      state.pending--;
      finishIfWhole();
    };
  }, [part]);
  return (
    <Suspense fallback={fallback}>
      {children}
      <Committed part={part} />
    </Suspense>
  );
}
