/**
 * The one shortcut registry (shared/shortcuts/registry.ts; library-playlists-account.md §6, §9; reader.md §5): scopes
 * (the reader's `/` before the site's), the typing guard (fields, contenteditable, a frame's elements), the off
 * switch (the reader's setting, touch-only devices), the signed-in rule, the page flag; and the help popup made from
 * what is bound on the page.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { SHORTCUT_MESSAGES } from '@lectern/core';
import { useRef } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MODAL_TRANSITION_MS } from '../src/components/Modal.tsx';
import { SHORTCUTS, ShortcutRegistry, type KeyLike, type ShortcutId } from '../src/shared/shortcuts/registry.ts';
import { ShortcutsRoot } from '../src/shared/shortcuts/ShortcutsRoot.tsx';
import { useShortcut, useShortcutsOff } from '../src/shared/shortcuts/useShortcut.ts';
import { profile } from './fixtures.ts';

/** A real KeyboardEvent on a real element (defaultPrevented is the event's own). */
function press(target: EventTarget, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const e = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  Object.defineProperty(e, 'target', { value: target });
  return e;
}

describe('the shortcut registry', () => {
  let registry: ShortcutRegistry;
  let calls: string[];
  const bind = (id: ShortcutId, result?: boolean) => registry.bind(id, () => {
    calls.push(id);
    return result;
  });
  beforeEach(() => {
    registry = new ShortcutRegistry();
    registry.configure({ signedIn: true });
    calls = [];
  });

  it('holds every key the specification lists, each with its words', () => {
    const shown = SHORTCUTS.flatMap((d) => d.keys.map((combo) => combo.join('+')));
    const K = SHORTCUT_MESSAGES.keyNames;
    for (const key of [K.escape, `${K.shift}+/`, '/', 'U', 'T', 'J', 'K', 'D', `${K.shift}+${K.enter}`, 'F', 'G', K.arrows, K.space, K.digits]) {
      expect(shown, key).toContain(key);
    }
    for (const d of SHORTCUTS) expect(SHORTCUT_MESSAGES.labels[d.id]).toBeTruthy();
    expect(new Set(SHORTCUTS.map((d) => d.id)).size).toBe(SHORTCUTS.length);
  });

  it('gives a key to the reader or the player before the site, and to the last bound within a scope', () => {
    bind('search');
    const offReader = bind('book-search');
    const e = press(document.body, '/');
    expect(registry.dispatch(e)).toBe(true);
    expect(calls).toEqual(['book-search']);
    expect(e.defaultPrevented).toBe(true);
    offReader();
    calls = [];
    registry.dispatch(press(document.body, '/'));
    expect(calls).toEqual(['search']);

    // a handler that says "not for me" passes the key on; a later binding of the same entry goes first
    calls = [];
    registry.bind('search', () => {
      calls.push('second');
      return false;
    });
    const passed = press(document.body, '/');
    registry.dispatch(passed);
    expect(calls).toEqual(['second', 'search']);

    // nothing bound for a key: not taken, the browser keeps its default
    const free = press(document.body, 'u');
    expect(registry.dispatch(free)).toBe(false);
    expect(free.defaultPrevented).toBe(false);
  });

  it('never fires a single key while typing in a field, contenteditable or a frame’s field; Esc does', () => {
    for (const id of ['search', 'next-card', 'contents', 'close', 'page'] as const) bind(id);
    const input = document.createElement('input');
    const area = document.createElement('textarea');
    const select = document.createElement('select');
    const editable = document.createElement('div');
    editable.contentEditable = 'true';
    // jsdom has no isContentEditable: what the browser answers
    Object.defineProperty(editable, 'isContentEditable', { value: true });
    const frame = document.createElement('iframe');
    document.body.append(frame);
    const frameInput = frame.contentDocument!.createElement('input');
    for (const field of [input, area, select, editable, frameInput]) {
      for (const key of ['/', 'j', 't', ' ', 'ArrowRight']) expect(registry.dispatch(press(field, key)), `${key} in ${field.tagName}`).toBe(false);
    }
    expect(calls).toEqual([]);
    expect(registry.dispatch(press(input, 'Escape'))).toBe(true);
    expect(calls).toEqual(['close']);
    // a frame's element that is not a field gets the keys (duck-typed across windows)
    calls = [];
    registry.dispatch(press(frame.contentDocument!.body, 't'));
    expect(calls).toEqual(['contents']);
    frame.remove();
  });

  it('leaves keys with Ctrl, Alt or Meta and keys a widget already took', () => {
    bind('search');
    bind('contents');
    for (const mod of ['ctrlKey', 'altKey', 'metaKey'] as const) expect(registry.dispatch(press(document.body, '/', { [mod]: true }))).toBe(false);
    const taken = press(document.body, 't');
    taken.preventDefault();
    expect(registry.dispatch(taken)).toBe(false);
    expect(calls).toEqual([]);
  });

  it('turns single-key shortcuts off with the setting and on touch-only devices; Esc, arrows, space and Shift+Enter stay', () => {
    for (const id of ['help', 'search', 'top', 'next-card', 'seek', 'close', 'page', 'open', 'play'] as const) bind(id);
    const single = ['?', '/', 'u', 'j', '5'];
    const kept: [string, KeyboardEventInit?][] = [['Escape'], ['ArrowDown'], ['Enter', { shiftKey: true }]];
    for (const off of [{ singleKeysOn: false }, { touchOnly: true }]) {
      registry.configure({ singleKeysOn: true, touchOnly: false, ...off });
      calls = [];
      for (const key of single) expect(registry.dispatch(press(document.body, key)), `${key} with ${JSON.stringify(off)}`).toBe(false);
      for (const [key, init] of kept) expect(registry.dispatch(press(document.body, key, init)), key).toBe(true);
      expect(calls).toEqual(['close', 'page', 'open']);
      expect(registry.available().map((d) => d.id)).toEqual(['close', 'open', 'page', 'play']);
    }
    registry.configure({ singleKeysOn: true, touchOnly: false });
    calls = [];
    for (const key of single) registry.dispatch(press(document.body, key));
    expect(calls).toEqual(['help', 'search', 'top', 'next-card', 'seek']);
  });

  it('keeps the site-wide shortcuts for signed-in readers; help, Esc and the reader’s keys work for everyone', () => {
    for (const id of ['help', 'search', 'next-card', 'close', 'contents'] as const) bind(id);
    registry.configure({ signedIn: false });
    for (const key of ['/', 'j']) expect(registry.dispatch(press(document.body, key))).toBe(false);
    for (const key of ['?', 'Escape', 't']) expect(registry.dispatch(press(document.body, key))).toBe(true);
    expect(calls).toEqual(['help', 'close', 'contents']);
  });

  it('turns everything but Esc off while a page declares its flag', () => {
    for (const id of ['help', 'contents', 'page', 'close'] as const) bind(id);
    const withdraw = registry.declarePageOff();
    for (const key of ['?', 't', 'ArrowRight']) expect(registry.dispatch(press(document.body, key))).toBe(false);
    expect(registry.dispatch(press(document.body, 'Escape'))).toBe(true);
    expect(registry.available().map((d) => d.id)).toEqual(['close']);
    withdraw();
    withdraw(); // a second withdrawal changes nothing
    expect(registry.dispatch(press(document.body, 't'))).toBe(true);
    expect(calls).toEqual(['close', 'contents']);
  });
});

describe('the help popup and the bindings of components', () => {
  const client = () => {
    const c = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    c.setQueryData(['profile'], profile);
    return c;
  };
  beforeEach(() => {
    document.cookie = 'logged_in=1; path=/';
  });
  afterEach(() => {
    document.cookie = 'logged_in=; max-age=0; path=/';
    vi.useRealTimers();
  });

  function BookPage({ onSearch, flag = false }: { onSearch: () => void; flag?: boolean }) {
    const opener = useRef<HTMLButtonElement>(null);
    useShortcut('book-search', onSearch);
    useShortcut('search', () => {}); // the site header's, which the book's `/` shadows
    useShortcutsOff(flag);
    return (
      <>
        <button ref={opener} type="button">
          Something
        </button>
        <input aria-label="A field" />
      </>
    );
  }

  /** `enabled` null: the server has not answered yet (the request fails here), as on a page load */
  function renderApp(enabled: boolean | null, onSearch = vi.fn(), flag = false) {
    const c = client();
    if (enabled !== null) c.setQueryData(['shortcut-setting', profile.user_uuid], { enabled });
    const view = render(
      <QueryClientProvider client={c}>
        <MemoryRouter>
          <ShortcutsRoot />
          <BookPage onSearch={onSearch} flag={flag} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    return { ...view, onSearch };
  }

  const key = (target: Element, k: string, init: KeyboardEventInit = {}) => act(() => void fireEvent.keyDown(target, { key: k, ...init }));

  it('Shift+/ opens a dialog listing what works on the page; Esc closes it and gives the focus back', () => {
    vi.useFakeTimers();
    const { onSearch } = renderApp(true);
    const opener = screen.getByRole('button', { name: 'Something' });
    opener.focus();
    key(opener, '?', { shiftKey: true });
    const dialog = screen.getByRole('dialog', { name: SHORTCUT_MESSAGES.helpTitle });
    expect(dialog.textContent).toContain(SHORTCUT_MESSAGES.labels['book-search']);
    expect(dialog.textContent).toContain(SHORTCUT_MESSAGES.labels.top);
    // the site's `/` is the book's here: listed once, as the book's
    expect(dialog.textContent).not.toContain(SHORTCUT_MESSAGES.labels.search);
    expect(dialog.textContent).not.toContain(SHORTCUT_MESSAGES.labels['next-card']);
    expect(screen.getByRole('link', { name: SHORTCUT_MESSAGES.manage }).getAttribute('href')).toBe('/u/shortcuts/');
    // the focus is inside the dialog
    expect(dialog.contains(document.activeElement)).toBe(true);
    key(document.activeElement!, 'Escape');
    act(() => {
      vi.advanceTimersByTime(MODAL_TRANSITION_MS);
    });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
    // `/` goes to the page's binding, not while typing
    key(opener, '/');
    expect(onSearch).toHaveBeenCalledTimes(1);
    key(screen.getByRole('textbox', { name: 'A field' }), '/');
    expect(onSearch).toHaveBeenCalledTimes(1);
  });

  it('with the setting off, neither Shift+/ nor `/` does anything', () => {
    const { onSearch } = renderApp(false);
    key(document.body, '?', { shiftKey: true });
    key(document.body, '/');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(onSearch).not.toHaveBeenCalled();
  });

  it('before the server answers, the setting this browser last knew holds (off stays off on a page load)', () => {
    const stored = `lectern.shortcuts.${profile.user_uuid}`;
    try {
      localStorage.setItem(stored, 'off');
      const off = renderApp(null);
      key(document.body, '/');
      expect(off.onSearch).not.toHaveBeenCalled();
      off.unmount();
      localStorage.removeItem(stored);
      const on = renderApp(null);
      key(document.body, '/');
      expect(on.onSearch).toHaveBeenCalledTimes(1);
      on.unmount();
      // the server's answer is what this browser keeps
      renderApp(false).unmount();
      expect(localStorage.getItem(stored)).toBe('off');
    } finally {
      localStorage.removeItem(stored);
    }
  });

  it('a page declaring the flag turns them off while it is shown', () => {
    const { onSearch } = renderApp(true, vi.fn(), true);
    key(document.body, '/');
    key(document.body, '?', { shiftKey: true });
    expect(onSearch).not.toHaveBeenCalled();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

// KeyLike is what the frame forwards: a plain object with the event's fields is enough for the registry.
describe('keys forwarded from a chapter frame', () => {
  it('takes an event-shaped object and prevents its default when handled', () => {
    const registry = new ShortcutRegistry();
    const seen: string[] = [];
    registry.bind('font-larger', (e) => void seen.push(e.key));
    let prevented = false;
    const e: KeyLike = { key: 'g', shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, defaultPrevented: false, target: null, preventDefault: () => (prevented = true) };
    expect(registry.dispatch(e)).toBe(true);
    expect(seen).toEqual(['g']);
    expect(prevented).toBe(true);
  });
});
