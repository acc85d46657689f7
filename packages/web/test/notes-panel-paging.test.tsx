/**
 * The notes panel lists every note of the book, not only the store search's first page of 1,000 rows: it asks on
 * with `offset` until the answer's `total` is in.
 */
import { ANNOTATION_LIMITS, type Annotation } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotesPanel } from '../src/features/reader/annotations/NotesPanel.tsx';
import { json, stubFetch } from './helpers.tsx';
import { profile, storedNote } from './fixtures.ts';

const token = `e30.${btoa(JSON.stringify({ consumerKey: 'lectern', userId: profile.user_uuid, issuedAt: new Date().toISOString(), ttl: 3600 })).replace(/=+$/, '')}.sig`;

const note = (i: number): Annotation => storedNote(`a${i}`, 'ch1.xhtml', { quote: `quote ${i}`, uri: '/library/view/x/b1/ch1.xhtml' });

afterEach(() => vi.unstubAllGlobals());

describe('the notes panel', () => {
  it('pages through the store search to the last note (1,000 a page)', async () => {
    const total = ANNOTATION_LIMITS.searchLimitMax + 3;
    const all = Array.from({ length: total }, (_, i) => note(i));
    const calls = stubFetch((call) => {
      const url = new URL(call.url, 'http://localhost');
      if (url.pathname === '/auth/token') return new Response(token, { status: 200, headers: { 'content-type': 'text/plain' } });
      if (url.pathname.endsWith('/search')) {
        const limit = Number(url.searchParams.get('limit'));
        const offset = Number(url.searchParams.get('offset') ?? 0);
        return json(200, { total, rows: all.slice(offset, offset + limit) });
      }
      return json(404, { detail: 'Not found.' });
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <NotesPanel open bookId="b1" titleSafe="x" userUuid={profile.user_uuid} orphanIds={new Set()} onClose={() => {}} onGo={() => {}} />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByText(`quote ${total - 1}`)).toBeTruthy(), { timeout: 4_000 });
    expect(screen.getByText('quote 0')).toBeTruthy();
    const searches = calls.filter((c) => c.url.includes('/search'));
    expect(searches.map((c) => new URL(c.url, 'http://localhost').searchParams.get('offset'))).toEqual(['0', String(ANNOTATION_LIMITS.searchLimitMax)]);
  });
});
