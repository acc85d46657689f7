/**
 * The reader's lock: a reader whose subscription ended is offered the way to subscribe, not a second way back to
 * the title page (the lock showed "Go to the title" above "Back to the title", both to the same page).
 */
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { MESSAGES, paths, READING_MESSAGES, type ArchiveItem } from '@lectern/core';
import { ChapterBody, type ChapterBodyProps } from '../src/features/reader/ChapterBody.tsx';
import { appPaths } from '../src/shared/links.ts';

function renderLock(message: string, url: string) {
  const item = { title: 'Moby-Dick' } as unknown as ArchiveItem;
  const props = { bookId: 'b1', load: { kind: 'refused', item, message, url }, pending: false, offline: false, error: null, retry: () => undefined } as unknown as ChapterBodyProps;
  render(
    <MemoryRouter>
      <ChapterBody {...props} />
    </MemoryRouter>,
  );
  return screen.getAllByRole('link').map((a) => [a.textContent, a.getAttribute('href')]);
}

describe('the reader lock', () => {
  it('offers an ended subscription the subscribe page, and the title page once', () => {
    const links = renderLock(READING_MESSAGES.subscriptionEnded, paths.titlePage('b1'));
    expect(screen.getByRole('alert').textContent).toBe(READING_MESSAGES.subscriptionEnded);
    expect(links).toEqual([
      ['Subscribe', appPaths.subscribe()],
      ['Back to the title', paths.titlePage('b1')],
    ]);
  });

  it('offers a visitor the sign-in the server names', () => {
    const links = renderLock(MESSAGES.signInToRead, '/login/?next=x');
    expect(links[0]).toEqual(['Sign in', '/login/?next=x']);
  });
});
