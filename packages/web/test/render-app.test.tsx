/**
 * The app's first render gives the main thread back while it renders (src/app/renderApp.ts; docs/decisions.md
 * "Each screen's first answers in its page, its chunks named with it, renders in slices": the first render was one long task after the first paint, counted whole in Total Blocking Time). Shown
 * by a macrotask loop running beside the render: each component notes the loop's count as it renders; a render in one
 * task sees one count, a render in slices several. The control (plain `root.render`) is the way the app rendered
 * before, and must see one count, or the test could not fail.
 */
import { useEffect, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../src/app/renderApp.ts';

/** Work a component does while it renders: the CPU kept busy a moment (not a wait). */
function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

let tick = 0;
let spinning = false;
/** A macrotask loop: the count goes up each time the render gives the thread back. */
function spin() {
  if (!spinning) return;
  tick++;
  setTimeout(spin, 0);
}

function Tree({ seen, done }: { seen: Set<number>; done: () => void }) {
  useEffect(done, [done]);
  return (
    <ul>
      {Array.from({ length: 60 }, (_, i) => (
        <Item key={i} seen={seen} />
      ))}
    </ul>
  );
}

function Item({ seen }: { seen: Set<number> }) {
  seen.add(tick);
  busy(1);
  return <li>item</li>;
}

/** Renders the tree with `start` and resolves with the loop counts its components saw, once it has committed. */
async function countsSeen(start: (container: Element, node: ReactElement) => Root): Promise<Set<number>> {
  const seen = new Set<number>();
  const container = document.createElement('div');
  document.body.append(container);
  let root: Root | undefined;
  await new Promise<void>((resolve) => {
    root = start(container, <Tree seen={seen} done={resolve} />);
  });
  root?.unmount();
  container.remove();
  return seen;
}

describe('renderApp', () => {
  let actEnvironment: unknown;
  beforeEach(() => {
    // rendered as the browser does, outside act()
    actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT;
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT = false;
    tick = 0;
    spinning = true;
    spin();
  });
  afterEach(() => {
    spinning = false;
    (globalThis as { IS_REACT_ACT_ENVIRONMENT?: unknown }).IS_REACT_ACT_ENVIRONMENT = actEnvironment;
  });

  it('renders the first screen in slices, giving the thread back between them', async () => {
    const seen = await countsSeen(renderApp);
    expect(seen.size).toBeGreaterThan(1);
  });

  it('(control) a plain root.render renders the same tree in one task', async () => {
    const seen = await countsSeen((container, node) => {
      const root = createRoot(container);
      root.render(node);
      return root;
    });
    expect(seen.size).toBe(1);
  });
});
