/**
 * A video course's or audiobook's title page speaks of watching and listening, not reading: a visitor is offered
 * the preview clip (which the player plays without a session) and a way to sign in to watch; the details give the
 * title's length and each part's, not a reading time in minutes.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BookDetail } from '@lectern/core';
import { TitlePage } from '../src/features/title/TitlePage.tsx';
import { title } from './fixtures.ts';
import { flush, json, stubFetch } from './helpers.tsx';

const part = (full_path: string, label: string, duration_ms: number) => ({
  full_path,
  label,
  url: `/api/v1/book/course/chapter/${full_path}`,
  web_url: `/library/view/t-course/course/${full_path}`,
  as_sample: false,
  is_public: false,
  minutes_required: duration_ms / 60_000,
  duration_ms,
});

const detail = (content_format: string): BookDetail => ({
  ...title('course', 'Beacons of the Coast'),
  content_format,
  language: 'en',
  source: content_format === 'video' ? 'video/mp4' : 'audio/mpeg',
  page_count: null,
  publisher_entries: [],
  chapters: [part('01-what.mp4', 'What a Lighthouse Does', 13_000), part('02-how.mp4', 'How the Light Is Made', 72_500)],
  toc: [],
  minutes_required: 85_500 / 60_000,
  formats: [],
});

let format = 'video';
beforeEach(() => {
  document.cookie = 'logged_in=; max-age=0; path=/';
  stubFetch((call) => (call.url.startsWith('/api/v1/book/course/') ? json(200, detail(format)) : json(404, { detail: 'Not found.' })));
});
afterEach(() => vi.unstubAllGlobals());

async function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/library/book/course/']}>
        <Routes>
          <Route path="/library/book/:bookId/" element={<TitlePage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  await flush();
  await screen.findByRole('heading', { name: 'Beacons of the Coast' });
}

describe('a media title page, for a visitor', () => {
  it('offers the video preview and signing in to watch, with lengths rather than reading time', async () => {
    format = 'video';
    await show();
    expect(screen.getByRole('link', { name: 'Watch the preview' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in to watch' })).toBeTruthy();
    expect(screen.queryByText(/Start reading|Read the sample|Sign in to read/)).toBeNull();
    expect(screen.getByText('Length').nextElementSibling?.textContent).toBe('1:25');
    expect(screen.queryByText('Reading time')).toBeNull();
    expect(screen.getByText('0:13')).toBeTruthy();
    expect(screen.getByText('1:12')).toBeTruthy();
  });

  it('offers an audiobook to listen to', async () => {
    format = 'audiobook';
    await show();
    expect(screen.getByRole('link', { name: 'Listen to the preview' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Sign in to listen' })).toBeTruthy();
  });
});
