import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Collection } from '@lectern/core';
import { clearError, getErrorState } from '../src/shared/errorState.ts';
import { NewPlaylistPage } from '../src/features/playlists/NewPlaylistPage.tsx';
import { CreatePlaylistModal } from '../src/shared/playlists/PlaylistModals.tsx';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { item, playlist, profile, queue } from './fixtures.ts';
import { json, renderSignedIn, stubFetch } from './helpers.tsx';

const content = { apiUrl: '/api/v1/book/b1/', contentFormat: 'book', topics: [{ slug: 'python', name: 'Python' }], title: 'Fluent Python' };

beforeEach(() => clearError());
afterEach(() => vi.unstubAllGlobals());

const nameField = () => screen.getByRole<HTMLInputElement>('textbox', { name: 'Name your new playlist' });
const createButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Create' });

describe("create modal (spec §2, §4 'Create flow')", () => {
  it("starts named 'New playlist' with the description labelled '(optional)'", () => {
    stubFetch(() => json(500));
    renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue()]);
    expect(screen.getByRole('dialog', { name: 'Create new playlist' })).toBeTruthy();
    expect(nameField().value).toBe('New playlist');
    expect(screen.getByRole('textbox', { name: /\(optional\)/ })).toBeTruthy();
    expect(createButton().disabled).toBe(false);
  });

  it('is in the error state (Create disabled) while a field error shows', () => {
    stubFetch(() => json(500));
    renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue(), playlist('1', 'New Playlist')]);
    expect(screen.getByText("Oops! You've already used this name.")).toBeTruthy();
    expect(createButton().disabled).toBe(true);
    fireEvent.change(nameField(), { target: { value: 'Python' } });
    expect(createButton().disabled).toBe(false);
  });

  it("creates with name and '' description, adds the title, then shows the success line, the link and 'Create another playlist'", async () => {
    const created = playlist('7', 'Python');
    const calls = stubFetch((call) => (call.url.endsWith('/add-content/') ? json(200, { ...created, content: [item('b1', [['python', 'Python']])] }) : json(201, created)));
    const { client } = renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue()]);
    fireEvent.change(nameField(), { target: { value: 'Python' } });
    const button = createButton();
    fireEvent.click(button);
    // fetching: disabled, and says so
    expect(button.disabled).toBe(true);
    expect(button.textContent).toBe('Creating…');
    const link = await screen.findByRole('link', { name: 'Visit Python' });
    expect(link.getAttribute('href')).toBe('/c/collection/7/');
    expect(link.closest('p')?.textContent).toBe('New playlist created with your book. Visit Python');
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['POST', '/nest/api/api/v2/collections/', { name: 'Python', description: '' }],
      ['POST', '/nest/api/api/v2/collections/7/add-content/', { content: ['/api/v1/book/b1/'] }],
    ]);
    // the new playlist is at the front, holding the title
    const cached = client.getQueryData<Collection[]>(playlistKeys.collections);
    expect(cached?.[0]).toMatchObject({ id: '7', content: [{ api_url: '/api/v1/book/b1/' }] });

    fireEvent.click(screen.getByRole('button', { name: 'Create another playlist' }));
    expect(nameField().value).toBe('New playlist');
    expect(screen.queryByRole('link', { name: 'Visit Python' })).toBeNull();
  });

  it('proceeds to success when adding the title after create fails (the spec ignores that failure)', async () => {
    stubFetch((call) => (call.url.endsWith('/add-content/') ? json(500, { detail: 'boom' }) : json(201, playlist('8', 'Later'))));
    renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue()]);
    fireEvent.change(nameField(), { target: { value: 'Later' } });
    fireEvent.click(createButton());
    await screen.findByRole('link', { name: 'Visit Later' });
    expect(getErrorState().didError).toBe(false);
  });

  it('a failed create reports the catalogue message and keeps Create disabled until a field changes', async () => {
    stubFetch(() => json(400, { detail: 'Invalid input.', errors: { name: ["Oops! You've already used this name."] } }));
    renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue()]);
    fireEvent.change(nameField(), { target: { value: 'Taken elsewhere' } });
    fireEvent.click(createButton());
    await screen.findByText("Oops! You've already used this name.");
    expect(getErrorState()).toMatchObject({ errorLevel: 'WARN', statusCode: 400, message: 'There was a problem creating your playlist. Please try again soon.' });
    expect(createButton().disabled).toBe(true);
    fireEvent.change(nameField(), { target: { value: 'Taken elsewhere 2' } });
    expect(createButton().disabled).toBe(false);
  });
});

describe('create modal: the keyboard is never trapped, typing is never lost to Escape', () => {
  const description = () => screen.getByRole<HTMLTextAreaElement>('textbox', { name: /\(optional\)/ });

  it('Tab in the description moves on (the default is not prevented), with no hint about Escape', () => {
    stubFetch(() => json(500));
    renderSignedIn(<CreatePlaylistModal open onClose={vi.fn()} content={content} />, [queue()]);
    const area = description();
    fireEvent.change(area, { target: { value: 'Notes' } });
    area.focus();
    expect(fireEvent.keyDown(area, { key: 'Tab' })).toBe(true);
    expect(area.value).toBe('Notes');
    expect(screen.queryByText(/Escape, then Tab/)).toBeNull();
  });

  it('Escape with nothing typed closes at once', () => {
    stubFetch(() => json(500));
    const onClose = vi.fn();
    renderSignedIn(<CreatePlaylistModal open onClose={onClose} content={content} />, [queue()]);
    fireEvent.keyDown(nameField(), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('Escape with unsaved text asks first: Keep editing keeps it, Discard closes', () => {
    stubFetch(() => json(500));
    const onClose = vi.fn();
    renderSignedIn(<CreatePlaylistModal open onClose={onClose} content={content} />, [queue()]);
    fireEvent.change(description(), { target: { value: 'For the train' } });
    fireEvent.keyDown(description(), { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    const ask = screen.getByRole('alertdialog', { name: 'Discard what you typed?' });
    expect(ask.textContent).toContain('has not been saved');
    // Escape in the question goes back to editing
    fireEvent.keyDown(screen.getByRole('button', { name: 'Keep editing' }), { key: 'Escape' });
    expect(onClose).not.toHaveBeenCalled();
    expect(description().value).toBe('For the train');
    // the close button asks too; Keep editing keeps the text
    fireEvent.click(screen.getAllByRole('button', { name: 'Close' })[0]!);
    fireEvent.click(screen.getByRole('button', { name: 'Keep editing' }));
    expect(onClose).not.toHaveBeenCalled();
    expect(description().value).toBe('For the train');
    fireEvent.keyDown(description(), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('create page /c/new-collection/ (spec §2)', () => {
  it('adds the contentUri from the navigation state and opens the new playlist', async () => {
    function Where() {
      return <p data-testid="where">{useLocation().pathname}</p>;
    }
    const calls = stubFetch((call) => (call.url.endsWith('/add-content/') ? json(200, playlist('5', 'From a link', [item('b3')])) : json(201, playlist('5', 'From a link'))));
    document.cookie = 'logged_in=1; path=/';
    document.cookie = 'csrftoken=tok; path=/';
    const client = new QueryClient();
    client.setQueryData(['profile'], profile);
    client.setQueryData(playlistKeys.collections, [queue()]);
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[{ pathname: '/c/new-collection/', state: { contentUri: 'http://lectern.test/nest/api/api/v1/book/b3' } }]}>
          <Routes>
            <Route path="/c/new-collection/" element={<NewPlaylistPage />} />
            <Route path="*" element={<Where />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Create new playlist' })).toBeTruthy();
    fireEvent.change(nameField(), { target: { value: 'From a link' } });
    fireEvent.click(createButton());
    await screen.findByTestId('where');
    expect(screen.getByTestId('where').textContent).toBe('/c/collection/5/');
    // the address is normalised before it is sent (spec §7 'normalized content uris')
    expect(calls[1]).toEqual({ method: 'POST', url: '/nest/api/api/v2/collections/5/add-content/', body: { content: ['/api/v1/book/b3/'] } });
  });
});
