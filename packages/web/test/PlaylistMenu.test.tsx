import { fireEvent, render, screen, within } from '@testing-library/react';
import { createRef } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { sortPlaylists, type Collection } from '@lectern/core';
import { AddToAnotherModal } from '../src/shared/playlists/PlaylistModals.tsx';
import { PlaylistMenu } from '../src/shared/playlists/PlaylistTitleCard.tsx';
import type { PlaylistEntry, PlaylistsView } from '../src/shared/playlists/store.ts';
import { item, playlist, queue } from './fixtures.ts';

const URL = '/api/v1/book/b1/';

function viewOf(playlists: Collection[], status: PlaylistsView['status'] = 'ready'): PlaylistsView {
  const def = playlists.find((p) => p.is_default);
  return {
    status,
    playlists,
    sorted: sortPlaylists(playlists),
    defaultPlaylist: def,
    queueUrls: new Set(def?.content.map((i) => i.api_url) ?? []),
    error: null,
    signedOut: false,
    refetch: () => undefined,
    isRefetching: false,
  };
}

function renderMenu(view: PlaylistsView, handlers: Partial<{ onToggle: (p: PlaylistEntry) => void; onAddToAnother: () => void; onAddToNew: () => void }> = {}) {
  const props = {
    playlists: view,
    apiUrl: URL,
    describedBy: 'title-id',
    stateOf: () => null,
    onToggle: handlers.onToggle ?? vi.fn(),
    onAddToAnother: handlers.onAddToAnother ?? vi.fn(),
    onAddToNew: handlers.onAddToNew ?? vi.fn(),
    buttonRef: createRef<HTMLButtonElement>(),
    rootRef: createRef<HTMLDivElement>(),
  };
  const result = render(<PlaylistMenu {...props} />);
  return { ...result, rerenderWith: (next: PlaylistsView) => result.rerender(<PlaylistMenu {...props} playlists={next} />) };
}

const itemNames = () =>
  Array.from(screen.getByRole('menu').querySelectorAll('[role^="menuitem"]'))
    .map((el) => `${el.textContent}${el.getAttribute('aria-checked') === 'true' ? ' [x]' : ''}`);

describe('title card playlist dropdown (spec §2, §9 dropdownLayout)', () => {
  it("lists up to 3 playlists, holders first, then 'add to another playlist' and 'add to a new playlist' (as §2 words them)", () => {
    // store order: most recently changed first; 'Rust' holds the title
    const lists = [queue(), playlist('1', 'Go'), playlist('2', 'Python'), playlist('3', 'Rust', [item('b1')]), playlist('4', 'Zig')];
    renderMenu(viewOf(lists));
    const button = screen.getByRole('button', { name: 'Added to Playlist' });
    expect(button.getAttribute('aria-describedby')).toBe('title-id');
    fireEvent.click(button);
    expect(itemNames()).toEqual(['Rust [x]', 'Queue', 'Go', 'add to another playlist', 'add to a new playlist']);
    const rust = screen.getByRole('menuitemcheckbox', { name: 'Rust' });
    expect(rust.getAttribute('aria-checked')).toBe('true');
    expect(screen.getByRole('menuitemcheckbox', { name: 'Queue' }).getAttribute('aria-checked')).toBe('false');
  });

  it("has no 'add to another playlist' with 3 playlists or fewer, and always 'add to a new playlist'", () => {
    renderMenu(viewOf([queue(), playlist('1', 'Go')]));
    fireEvent.click(screen.getByRole('button', { name: 'Add to Playlist' }));
    expect(itemNames()).toEqual(['Queue', 'Go', 'add to a new playlist']);
  });

  it("puts 'add to new' at index 5 with more than 3 playlists ('add to another' at 4), after the 3 with exactly 3, at count + 1 with fewer", () => {
    const all = [queue(), playlist('1', 'Go'), playlist('2', 'Python'), playlist('3', 'Rust'), playlist('4', 'Zig')];
    for (const count of [1, 2, 3, 4, 5]) {
      const { unmount } = renderMenu(viewOf(all.slice(0, count)));
      fireEvent.click(screen.getByRole('button', { name: 'Add to Playlist' }));
      const names = itemNames();
      const position = (label: string) => names.indexOf(label) + 1;
      expect(position('add to a new playlist'), `${count} playlists`).toBe(count > 3 ? 5 : count + 1);
      expect(position('add to another playlist'), `${count} playlists`).toBe(count > 3 ? 4 : 0);
      expect(names.length, `${count} playlists`).toBe(count > 3 ? 5 : count + 1);
      unmount();
    }
  });

  it('one click toggles a playlist; the dialog entries close the menu', () => {
    const onToggle = vi.fn();
    const onAddToAnother = vi.fn();
    const onAddToNew = vi.fn();
    const lists = [queue(), playlist('1', 'Go'), playlist('2', 'Python'), playlist('3', 'Rust')];
    renderMenu(viewOf(lists), { onToggle, onAddToAnother, onAddToNew });
    const button = screen.getByRole('button', { name: 'Add to Playlist' });
    fireEvent.click(button);
    fireEvent.click(screen.getByRole('menuitemcheckbox', { name: 'Go' }));
    expect(onToggle).toHaveBeenCalledWith(lists[1]);
    // the menu stays open after a toggle
    expect(screen.getByRole('menu')).toBeTruthy();
    fireEvent.click(screen.getByRole('menuitem', { name: 'add to another playlist' }));
    expect(onAddToAnother).toHaveBeenCalled();
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    fireEvent.click(screen.getByRole('menuitem', { name: 'add to a new playlist' }));
    expect(onAddToNew).toHaveBeenCalled();
  });

  it('keeps the order while open, so a toggled playlist does not jump away; reorders on the next opening', () => {
    const lists = [queue(), playlist('1', 'Go'), playlist('2', 'Python'), playlist('3', 'Rust')];
    const { rerenderWith } = renderMenu(viewOf(lists));
    fireEvent.click(screen.getByRole('button', { name: 'Add to Playlist' }));
    expect(itemNames()).toEqual(['Queue', 'Go', 'Python', 'add to another playlist', 'add to a new playlist']);
    // Python now holds the title (and, changed last, moved to the front of the store order)
    const after = [playlist('2', 'Python', [item('b1')]), queue(), playlist('1', 'Go'), playlist('3', 'Rust')];
    rerenderWith(viewOf(after));
    expect(itemNames()).toEqual(['Queue', 'Go', 'Python [x]', 'add to another playlist', 'add to a new playlist']);
    expect(screen.getByRole('button', { name: 'Added to Playlist' })).toBeTruthy();
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Added to Playlist' }));
    expect(itemNames()).toEqual(['Python [x]', 'Queue', 'Go', 'add to another playlist', 'add to a new playlist']);
  });

  it("shows busy and failed items: the failure is marked for screen readers too", () => {
    const lists = [queue(), playlist('1', 'Go')];
    render(
      <PlaylistMenu
        playlists={viewOf(lists)}
        apiUrl={URL}
        describedBy="t"
        stateOf={(p) => (p.id === '1' ? 'error' : 'busy')}
        onToggle={vi.fn()}
        onAddToAnother={vi.fn()}
        onAddToNew={vi.fn()}
        buttonRef={createRef()}
        rootRef={createRef()}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Add to Playlist' }));
    expect(screen.getByRole('menuitemcheckbox', { name: 'Queue' }).getAttribute('aria-busy')).toBe('true');
    const go = screen.getByRole('menuitemcheckbox', { name: /Go/ });
    expect(go.className).toContain('menu__item--error');
    expect(go.textContent).toContain('the last change failed');
  });

  it("is disabled with the tooltip 'Unavailable' when the playlist list failed fatally", () => {
    renderMenu(viewOf([], 'fatal'));
    const button = screen.getByRole('button', { name: 'Unavailable' });
    expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Unavailable', { selector: '.tooltip' })).toBeTruthy();
  });

  it('says it is loading while the list is on its way', () => {
    renderMenu(viewOf([], 'loading'));
    fireEvent.click(screen.getByRole('button', { name: 'Add to Playlist' }));
    expect(within(screen.getByRole('menu')).getByText(/Loading your playlists/)).toBeTruthy();
  });
});

describe("the 'Add to another playlist' dialog (spec §2)", () => {
  it("filters by a case-insensitive part of the name in 'Find a playlist'; says 'Choose a playlist', or 'No results'", () => {
    const lists = [queue(), playlist('1', 'Go'), playlist('2', 'Python'), playlist('3', 'Rust', [item('b1')]), playlist('4', 'Trusty tools')];
    const onToggle = vi.fn();
    render(
      <AddToAnotherModal
        open
        onClose={vi.fn()}
        playlists={lists}
        title="The War of the Worlds"
        contains={(p) => p.id === '3'}
        stateOf={() => null}
        onToggle={onToggle}
      />,
    );
    const dialog = screen.getByRole('dialog', { name: 'Add to another playlist' });
    const search = within(dialog).getByRole<HTMLInputElement>('searchbox');
    expect(search.placeholder).toBe('Find a playlist');
    expect(within(dialog).getByRole('status').textContent).toBe('Choose a playlist');
    const choices = () => Array.from(dialog.querySelectorAll('.playlist-choice__name')).map((el) => el.textContent);
    expect(choices()).toEqual(['Queue', 'Go', 'Python', 'Rust', 'Trusty tools']);

    fireEvent.change(search, { target: { value: 'RUST' } });
    expect(choices()).toEqual(['Rust', 'Trusty tools']);
    expect(within(dialog).getByRole('status').textContent).toBe('Choose a playlist');
    expect(within(dialog).getByRole('button', { name: /Rust/ }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(within(dialog).getByRole('button', { name: /Trusty tools/ }));
    expect(onToggle).toHaveBeenCalledWith(lists[4]);

    fireEvent.change(search, { target: { value: 'haskell' } });
    expect(choices()).toEqual([]);
    expect(within(dialog).getByRole('status').textContent).toBe('No results');
  });
});
