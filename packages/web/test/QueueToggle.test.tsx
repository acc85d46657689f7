import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Collection } from '@lectern/core';
import { clearError, getErrorState } from '../src/shared/errorState.ts';
import { PlaylistTitleCard } from '../src/shared/playlists/PlaylistTitleCard.tsx';
import { playlistKeys } from '../src/shared/playlists/store.ts';
import { queue, title } from './fixtures.ts';
import { flush, json, renderSignedIn, stubFetch } from './helpers.tsx';

const book = title('b1', 'Fluent Python');

beforeAll(async () => {
  await import('../src/api/schemas.ts'); // loaded on the first request; here before the clock is faked
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  clearError();
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('queue toggle on a title card (spec §2, §9)', () => {
  it("adds with an 800 ms overlay, then 'Added to your queue' for 1.2 s; the button becomes 'Remove from Queue'", async () => {
    const calls = stubFetch(() => json(200, { results: [] }));
    const { client } = renderSignedIn(<PlaylistTitleCard title={book} />, [queue()]);
    const toggle = screen.getByRole('button', { name: 'Add to Queue' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');

    fireEvent.click(toggle);
    await flush();
    expect(screen.getByText('Adding to your queue...', { selector: '.queue-overlay span' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('Adding to your queue...');
    expect(calls[0]).toEqual({ method: 'POST', url: '/api/v1/queue-simple/', body: ['/api/v1/book/b1/'] });

    // the request is done at once, the overlay stays its 800 ms
    await act(async () => vi.advanceTimersByTime(799));
    expect(screen.queryByText('Adding to your queue...', { selector: '.queue-overlay span' })).not.toBeNull();
    await act(async () => vi.advanceTimersByTime(1));
    expect(screen.getByText('Added to your queue', { selector: '.queue-banner span' })).toBeTruthy();

    const pressed = screen.getByRole('button', { name: 'Remove from Queue' });
    expect(pressed.getAttribute('aria-pressed')).toBe('true');
    expect(client.getQueryData<Collection[]>(playlistKeys.collections)?.[0]?.content.map((i) => i.api_url)).toEqual(['/api/v1/book/b1/']);
    // the playlist menu now says the title is in a playlist
    expect(screen.getByRole('button', { name: 'Added to Playlist' })).toBeTruthy();

    await act(async () => vi.advanceTimersByTime(1199));
    expect(screen.queryByText('Added to your queue', { selector: '.queue-banner span' })).not.toBeNull();
    await act(async () => vi.advanceTimersByTime(1));
    expect(screen.queryByText('Added to your queue', { selector: '.queue-banner span' })).toBeNull();
  });

  it("removes with 'Removing from your queue...' then 'Removed from your queue'", async () => {
    const calls = stubFetch(() => json(200, { results: [] }));
    renderSignedIn(<PlaylistTitleCard title={book} />, [queue([{ api_url: book.api_url, metadata: { topics: [] } }])]);
    fireEvent.click(screen.getByRole('button', { name: 'Remove from Queue' }));
    await flush();
    expect(screen.getByRole('status').textContent).toBe('Removing from your queue...');
    expect(calls[0]?.method).toBe('DELETE');
    await act(async () => vi.advanceTimersByTime(800));
    expect(screen.getByRole('status').textContent).toBe('Removed from your queue');
    expect(screen.getByRole('button', { name: 'Add to Queue' }).getAttribute('aria-pressed')).toBe('false');
  });

  it("shows 'Error: {reason}' when the queue refuses, keeps the state, and reports a WARN error", async () => {
    stubFetch(() => json(503, { detail: 'Service unavailable.' }));
    renderSignedIn(<PlaylistTitleCard title={book} />, [queue()]);
    fireEvent.click(screen.getByRole('button', { name: 'Add to Queue' }));
    await flush();
    await act(async () => vi.advanceTimersByTime(800));
    expect(screen.getByText('Error: There was a problem adding content to your queue.', { selector: '.queue-banner span' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add to Queue' })).toBeTruthy();
    expect(getErrorState()).toMatchObject({
      errorLevel: 'WARN',
      statusCode: 503,
      message: 'There was a problem adding content to your queue. Please try again soon.',
    });
  });

  it('ignores clicks while the change is under way', async () => {
    const calls = stubFetch(() => json(200, { results: [] }));
    renderSignedIn(<PlaylistTitleCard title={book} />, [queue()]);
    const toggle = screen.getByRole('button', { name: 'Add to Queue' });
    fireEvent.click(toggle);
    await flush();
    expect(toggle.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(toggle);
    await flush();
    expect(calls).toHaveLength(1);
  });
});
