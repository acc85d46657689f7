/**
 * The header's search box follows the search pages (library-playlists-account.md §2: /search/ and /noresults/ alter
 * the top bar): it shows the query of the results on show, a new search made on the page included, and is empty
 * on other pages. It kept the first query it was opened with: "moby" stayed in the box in the reader, and a second
 * search from the page's own field left the first query above it.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, useNavigate, type NavigateFunction } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeaderSearch } from '../src/features/search/HeaderSearch.tsx';
import { json, stubFetch } from './helpers.tsx';

let go: NavigateFunction = () => undefined;
function Navigator() {
  go = useNavigate();
  return null;
}

beforeEach(() => {
  document.cookie = 'logged_in=; max-age=0; path=/';
  stubFetch(() => json(200, []));
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the header search box', () => {
  it('shows the query of the search page on show, and nothing elsewhere', async () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MemoryRouter initialEntries={['/search/?q=moby']}>
          <Navigator />
          <HeaderSearch />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const box = () => screen.getByRole<HTMLInputElement>('combobox').value;
    expect(box()).toBe('moby');
    await act(async () => {
      go('/search/?q=harpoon');
    });
    expect(box()).toBe('harpoon');
    await act(async () => {
      go('/library/view/moby-dick/b1/chapter_001.xhtml');
    });
    expect(box()).toBe('');
    await act(async () => {
      go('/noresults/?q=zzzq');
    });
    expect(box()).toBe('zzzq');
    // the whole library ('*') is no words in the box
    await act(async () => {
      go('/search/?q=*');
    });
    expect(box()).toBe('');
  });

  it('keeps its suggestions open when the focus leaves it and comes back at once (a dialog opened and closed over it)', async () => {
    stubFetch(({ url }) => (url.includes('/suggest/') ? json(200, { suggestions: [{ kind: 'title', label: "Alice's Adventures in Wonderland", url: '/library/book/a1/' }] }) : json(200, [])));
    render(
      <QueryClientProvider client={new QueryClient()}>
        <MemoryRouter initialEntries={['/library/']}>
          <HeaderSearch />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const box = screen.getByRole<HTMLInputElement>('combobox');
    box.focus();
    fireEvent.change(box, { target: { value: 'alice' } });
    await vi.waitFor(() => expect(box.getAttribute('aria-expanded')).toBe('true'), { timeout: 5_000 });
    // the help dialog takes the focus and gives it back within the 150 ms the box waits after a blur
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    act(() => {
      fireEvent.blur(box);
      vi.advanceTimersByTime(50);
      fireEvent.focus(box);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(500);
    });
    // before: the blur's timer closed the list while the box had the focus again
    expect(box.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('option', { name: /Alice's Adventures in Wonderland/ })).toBeTruthy();
  });
});
