import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PLAYLIST_MESSAGES, type Collection } from '@lectern/core';
import { clearError, getErrorState } from '../src/shared/errorState.ts';
import { EditPlaylistPage } from '../src/features/playlists/EditPlaylistPage.tsx';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { item, playlist, profile, queue } from './fixtures.ts';

const rust = playlist('3', 'Rust', [item('b1'), item('b2')], { description: 'Ownership and borrowing' });
const lists = (): Collection[] => [queue(), playlist('1', 'Go'), rust];

interface Call {
  method: string;
  url: string;
  body: unknown;
}
let calls: Call[] = [];
let respond: (call: Call) => Response | Promise<Response>;

const json = (status: number, body?: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

function renderEdit(id = '3') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], profile);
  client.setQueryData(playlistKeys.collections, lists());
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[`/c/edit-collection/${id}/`]}>
        <Routes>
          <Route path="/c/edit-collection/:collectionId" element={<EditPlaylistPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return client;
}

const nameField = () => screen.getByRole<HTMLInputElement>('textbox', { name: 'Name' });
const descriptionField = () => screen.getByRole<HTMLTextAreaElement>('textbox', { name: /Description/ });
const saveButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Save' });
const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

beforeEach(() => {
  document.cookie = 'logged_in=1; path=/';
  document.cookie = 'csrftoken=tok; path=/';
  calls = [];
  respond = () => json(500, { detail: 'boom' });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const call = { method: init.method ?? 'GET', url, body: init.body ? JSON.parse(String(init.body)) : undefined };
      calls.push(call);
      return respond(call);
    }),
  );
  clearError();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('edit page: live validation against the other playlists (spec §5)', () => {
  it('shows each message under its field and disables Save while one shows', () => {
    renderEdit();
    expect(nameField().value).toBe('Rust');
    expect(descriptionField().value).toBe('Ownership and borrowing');
    expect(saveButton().disabled).toBe(false);

    type(nameField(), '   ');
    expect(screen.getByText("Oops. You didn't name your playlist.")).toBeTruthy();
    expect(nameField().getAttribute('aria-invalid')).toBe('true');
    expect(saveButton().disabled).toBe(true);

    type(nameField(), 'go');
    expect(screen.getByText("Oops! You've already used this name.")).toBeTruthy();
    expect(saveButton().disabled).toBe(true);

    type(nameField(), 'queue');
    expect(screen.getByText("Oops! You've already used this name.")).toBeTruthy();

    type(nameField(), 'x'.repeat(66));
    expect(screen.getByText('Playlist names are limited to 65 characters')).toBeTruthy();
    expect(saveButton().disabled).toBe(true);

    // its own name, in any case, is fine
    type(nameField(), 'RUST');
    expect(screen.queryByText(/Oops/)).toBeNull();
    expect(saveButton().disabled).toBe(false);

    type(descriptionField(), 'd'.repeat(161));
    expect(screen.getByText('Playlist descriptions are limited to 160 characters')).toBeTruthy();
    expect(saveButton().disabled).toBe(true);
    type(descriptionField(), 'd'.repeat(160));
    expect(screen.queryByText('Playlist descriptions are limited to 160 characters')).toBeNull();
    expect(saveButton().disabled).toBe(false);
  });

  it('Tab in the description moves on, as everywhere else (WCAG 2.1.2: no keyboard trap), and no hint says otherwise', () => {
    renderEdit();
    const area = descriptionField();
    area.focus();
    area.setSelectionRange(9, 9);
    // the browser's default (move focus) is left alone
    expect(fireEvent.keyDown(area, { key: 'Tab' })).toBe(true);
    expect(area.value).toBe('Ownership and borrowing');
    expect(screen.queryByText(/Escape, then Tab/)).toBeNull();
    expect(screen.queryByText(/inserts a tab/)).toBeNull();
  });
});

describe('edit page: save, delete', () => {
  it("sends {description, id, name}, says 'Working... saving your changes' then 'Changes saved', and opens the playlist after 1350 ms", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release: (r: Response) => void = () => undefined;
    respond = () => new Promise<Response>((r) => (release = r));
    renderEdit();
    type(nameField(), 'Rust in practice');
    fireEvent.click(saveButton());
    await act(async () => undefined);
    expect(screen.getByRole('status').textContent).toBe(PLAYLIST_MESSAGES.saving);
    expect(saveButton().disabled).toBe(true);
    expect(calls.at(-1)).toEqual({
      method: 'PATCH',
      url: '/nest/api/api/v2/collections/3/',
      body: { description: 'Ownership and borrowing', id: '3', name: 'Rust in practice' },
    });

    await act(async () => release(json(200, { ...rust, name: 'Rust in practice' })));
    expect(screen.getByRole('status').textContent).toBe(PLAYLIST_MESSAGES.saved);
    await act(async () => vi.advanceTimersByTime(1349));
    expect(screen.queryByTestId('where')).toBeNull();
    await act(async () => vi.advanceTimersByTime(1));
    expect(screen.getByTestId('where').textContent).toBe('/c/collection/3/');
  });

  it('a failed save shows the catalogue message and re-enables Save', async () => {
    respond = () => json(500, { detail: 'Internal error.' });
    renderEdit();
    fireEvent.click(saveButton());
    await act(async () => undefined);
    await screen.findByText('There was a problem updating your playlist. Please try again soon.');
    expect(getErrorState()).toMatchObject({ didError: true, errorLevel: 'WARN', statusCode: 500, message: 'There was a problem updating your playlist. Please try again soon.' });
    expect(saveButton().disabled).toBe(false);
  });

  it("Delete asks in the 'Delete playlist' dialog; Confirm deletes and goes to /c/", async () => {
    respond = () => new Response(null, { status: 204 });
    const client = renderEdit();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete playlist' });
    expect(dialog.textContent).toContain('Are you sure you want to delete this playlist? This action cannot be undone.');
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByTestId('where');
    expect(screen.getByTestId('where').textContent).toBe('/c/');
    expect(calls.at(-1)).toMatchObject({ method: 'DELETE', url: '/nest/api/api/v2/collections/3/' });
    expect(client.getQueryData<Collection[]>(playlistKeys.collections)?.map((p) => p.id)).toEqual(['q', '1']);
    // leaving after a delete is not the 'could not find' case
    expect(getErrorState().didError).toBe(false);
  });

  it('when the delete fails the dialog closes and the error shows', async () => {
    respond = () => json(500, { detail: 'Internal error.' });
    renderEdit();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByText('There was a problem deleting your playlist. Please try again soon.');
    expect(screen.queryByRole('alertdialog')?.closest('.modal')?.className ?? '').not.toContain('modal--active');
    expect(document.body.classList.contains('modal-active')).toBe(false);
  });

  it("Duplicate creates 'Copy of {name}' with the description, adds every item and opens the copy's edit page", async () => {
    const copy = playlist('9', 'Copy of Rust', [], { description: rust.description });
    respond = (call) =>
      call.url.endsWith('/add-content/') ? json(200, { ...copy, content: [item('b1'), item('b2')] }) : json(201, copy);
    renderEdit();
    fireEvent.click(screen.getByRole('button', { name: 'Duplicate' }));
    await act(async () => undefined);
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[0]).toEqual({ method: 'POST', url: '/nest/api/api/v2/collections/', body: { name: 'Copy of Rust', description: 'Ownership and borrowing' } });
    expect(calls[1]).toEqual({ method: 'POST', url: '/nest/api/api/v2/collections/9/add-content/', body: { content: ['/api/v1/book/b1/', '/api/v1/book/b2/'] } });
    await vi.waitFor(() => expect(nameField().value).toBe('Copy of Rust'));
  });

  it('the default playlist cannot be edited: back to /c/ with a WARN message', async () => {
    renderEdit('q');
    await screen.findByTestId('where');
    expect(screen.getByTestId('where').textContent).toBe('/c/');
    expect(getErrorState()).toMatchObject({ errorLevel: 'WARN', message: PLAYLIST_MESSAGES.defaultNotEditable });
  });

  it("an unknown playlist goes back to /c/ with 'We could not find the playlist that you requested. Please try again soon.' (the 'collection not found' error)", async () => {
    renderEdit('nope');
    await screen.findByTestId('where');
    expect(getErrorState()).toMatchObject({
      errorLevel: 'WARN',
      message: 'We could not find the playlist that you requested. Please try again soon.',
      responseText: 'collection not found',
    });
  });
});
