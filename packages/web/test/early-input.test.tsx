/**
 * What a reader does on a server-rendered screen before it is hydrated is kept (docs/decisions.md "The first screen
 * rendered on the server"; app/earlyInput.ts, app/hydration.tsx): the keys the page's early script kept go through
 * the shortcut registry once the screen is hydrated, typed text and ticked boxes become React's state, and the
 * document gets its `data-hydrated` mark only once the page's own boundary has hydrated too.
 */
import { act, StrictMode, useState } from 'react';
import type { Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BOOT_DATA_ID, EARLY_INPUT_GLOBAL, firstScreenRequests, type CatalogSearchResponse } from '@lectern/core';
import { App, startApp } from '../src/app/App.tsx';
import { type EarlyKey, fieldsOf, replayKeys, takeIntoState } from '../src/app/earlyInput.ts';
import { FIRST_SCREEN_ATTRIBUTE, prepareFirstScreen } from '../src/app/firstScreen.ts';
import { HYDRATED_ATTRIBUTE, HydrationBoundary, HydrationRoot, resetHydration } from '../src/app/hydration.tsx';
import { hydrateApp } from '../src/app/renderApp.ts';
import { resetBootData } from '../src/api/boot.ts';
import { ShortcutRegistry, shortcuts } from '../src/shared/shortcuts/registry.ts';
import { useShortcut } from '../src/shared/shortcuts/useShortcut.ts';
import { renderFirstScreen } from '../src/ssr.tsx';
import { profile, whaleSearch } from './fixtures.ts';
import { json, stubFetch } from './helpers.tsx';

const asked: string[] = [];
/** Roots hydrated by a test: unmounted after it, so no effect or timer of theirs runs once the environment is gone. */
const hydrated: Root[] = [];
beforeEach(() => {
  asked.length = 0;
  resetHydration();
  stubFetch((call) => {
    asked.push(call.url);
    return json(404, { detail: 'Not found.' });
  });
});
afterEach(() => {
  act(() => {
    for (const root of hydrated.splice(0)) root.unmount();
  });
  delete (window as unknown as Record<string, unknown>)[EARLY_INPUT_GLOBAL];
  document.body.innerHTML = '';
  resetHydration();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** What the page's early script leaves (server routes/web.ts EARLY_INPUT_SCRIPT), its listeners stood for by `stop`. */
function keptByThePage(keys: Omit<EarlyKey, 'target'>[]) {
  const stop = vi.fn();
  (window as unknown as Record<string, unknown>)[EARLY_INPUT_GLOBAL] = { keys: keys.map((k) => ({ ...k, target: document.body })), fields: [], stop };
  return stop;
}

/** Typing before hydration: the DOM's value changes, React knows nothing of it (no event it listens to yet). */
const typeBeforeHydration = (input: HTMLInputElement, text: string) => {
  input.value = text;
};

describe('the search page rendered on the server, used before it is hydrated', () => {
  const answer: CatalogSearchResponse = whaleSearch({ format: [{ value: 'book', label: 'Book', count: 2 }] });
  beforeEach(() => {
    document.cookie = 'logged_in=1; path=/';
    history.replaceState(null, '', '/search/?q=whale');
  });
  afterEach(() => {
    document.cookie = 'logged_in=; max-age=0; path=/';
    resetBootData();
  });

  it('opens the help popup for a Shift+/ pressed before, and the header search asks for the word typed before', async () => {
    const search = firstScreenRequests('/search/', new URLSearchParams('q=whale'))[0]!;
    const page = { profile, answers: { [search]: answer } };
    const html = await renderFirstScreen({ url: '/search/?q=whale', cookie: document.cookie, page });
    resetBootData();
    document.body.innerHTML = `<div id="root" ${FIRST_SCREEN_ATTRIBUTE}>${html}</div><script type="application/json" id="${BOOT_DATA_ID}">${JSON.stringify(page)}</script>`;
    const root = document.getElementById('root')!;
    const box = root.querySelector<HTMLInputElement>('input[role="combobox"]')!;
    expect(box.value).toBe('whale');
    const stop = keptByThePage([{ key: '?', shiftKey: true }]);
    typeBeforeHydration(box, 'alice');

    const client = startApp();
    expect(await prepareFirstScreen(client, location.pathname, location.search)).toBe(true);
    await act(async () => {
      hydrated.push(hydrateApp(
        root,
        <StrictMode>
          <App client={client} />
        </StrictMode>,
      ));
    });
    await vi.waitFor(() => expect(document.documentElement.getAttribute(HYDRATED_ATTRIBUTE)).toBe('true'));
    expect(stop).toHaveBeenCalled();
    // the key went to the registry once hydrated: the help popup is open
    await vi.waitFor(() => expect(document.querySelector('[role="dialog"]')?.textContent).toMatch(/shortcut/i));
    // the typed word is the box's state (a later render keeps it) and the suggestions are asked for it
    expect(box.value).toBe('alice');
    await vi.waitFor(() => expect(asked.some((url) => url.includes('/suggest') && url.includes('q=alice'))).toBe(true), { timeout: 3_000 });
    expect(box.value).toBe('alice');
  });
});

describe('a page in a boundary of its own', () => {
  function Header({ seen }: { seen: string[] }) {
    const [value, setValue] = useState('rendered');
    const [ticked, setTicked] = useState(false);
    useShortcut('help', () => void seen.push('help'));
    return (
      <header>
        <input aria-label="box" value={value} onChange={(e) => setValue(e.currentTarget.value)} />
        <input type="checkbox" aria-label="tick" checked={ticked} onChange={(e) => setTicked(e.currentTarget.checked)} />
        <output>
          {value}/{String(ticked)}
        </output>
      </header>
    );
  }
  function Page({ seen }: { seen: string[] }) {
    const [field, setField] = useState('page');
    useShortcut('next-card', () => void seen.push('next-card'));
    return (
      <main>
        <input aria-label="page field" value={field} onChange={(e) => setField(e.currentTarget.value)} />
        <p>{field}</p>
      </main>
    );
  }
  const tree = (seen: string[]) => (
    <HydrationRoot>
      <Header seen={seen} />
      <HydrationBoundary fallback={<p>loading</p>}>
        <Page seen={seen} />
      </HydrationBoundary>
    </HydrationRoot>
  );

  it('takes the fields of the root at its commit, and replays the keys and marks the document once the page has hydrated', async () => {
    shortcuts.configure({ signedIn: true, singleKeysOn: true, touchOnly: false });
    const seen: string[] = [];
    document.body.innerHTML = `<div id="root">${renderToString(tree(seen))}</div>`;
    const root = document.getElementById('root')!;
    const [box, tick, pageField] = [...root.querySelectorAll('input')];
    expect(fieldsOf(root).map((f) => f.inBoundary)).toEqual([false, false, true]);
    typeBeforeHydration(box!, 'typed');
    tick!.checked = true;
    typeBeforeHydration(pageField!, 'page typed');
    keptByThePage([
      { key: '?', shiftKey: true },
      { key: 'j', shiftKey: false },
    ]);
    const { hydrateRoot } = await import('react-dom/client');
    await act(async () => {
      hydrated.push(hydrateRoot(root, tree(seen)));
    });
    await vi.waitFor(() => expect(document.documentElement.getAttribute(HYDRATED_ATTRIBUTE)).toBe('true'));
    expect(root.querySelector('output')?.textContent).toBe('typed/true');
    expect(root.querySelector('main p')?.textContent).toBe('page typed');
    // each key once, the page's own included (bound only when the page's boundary hydrated)
    expect(seen).toEqual(['help', 'next-card']);
  });
});

describe('takeIntoState', () => {
  it('sends nothing for fields as React rendered them', () => {
    document.body.innerHTML = '<input value="a"><input type="checkbox"><select><option>x</option><option selected>y</option></select>';
    const fields = [...document.body.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')];
    const events = vi.fn();
    document.body.addEventListener('input', events);
    document.body.addEventListener('change', events);
    document.body.addEventListener('click', events);
    expect(takeIntoState(fields)).toBe(0);
    expect(events).not.toHaveBeenCalled();
  });

  it("gives a select the value the page kept for it, React having set it back as it hydrated, with a change event", () => {
    document.body.innerHTML = '<select><option>x</option><option selected>y</option></select>';
    const select = document.querySelector('select')!;
    const changed = vi.fn();
    select.addEventListener('change', () => changed(select.value));
    expect(takeIntoState([select], [{ field: select, value: 'x' }])).toBe(1);
    expect(changed).toHaveBeenCalledWith('x');
  });
});

describe('replayKeys', () => {
  const key = (k: string, shiftKey = false): EarlyKey => ({ key: k, shiftKey, target: document.body });

  it('gives each key to the registry once, in order', () => {
    const registry = new ShortcutRegistry();
    registry.configure({ signedIn: true });
    const seen: string[] = [];
    registry.bind('help', () => void seen.push('help'));
    registry.bind('top', () => void seen.push('top'));
    replayKeys([key('u'), key('?', true), key('x')], registry.dispatch);
    expect(seen).toEqual(['top', 'help']);
  });

  it('puts what was typed after a key that focused a text field into that field, not to the shortcuts', () => {
    document.body.innerHTML = '<input aria-label="search" value="">';
    const input = document.querySelector('input')!;
    const typed = vi.fn();
    input.addEventListener('input', () => typed(input.value));
    const registry = new ShortcutRegistry();
    registry.configure({ signedIn: true });
    const seen: string[] = [];
    registry.bind('search', () => input.focus());
    registry.bind('reject', () => void seen.push('reject'));
    replayKeys([key('/'), key('d'), key('u'), key('n'), key('e')], registry.dispatch);
    expect(seen).toEqual([]);
    expect(input.value).toBe('dune');
    expect(typed).toHaveBeenCalledWith('dune');
  });
});
