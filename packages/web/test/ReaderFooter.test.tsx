/**
 * The chapter bar: a right-to-left book's chapters go the other way (the next on the left, pointing left; the bar
 * fills from the right), a left-to-right book's as before. Rendered in jsdom: `dir` is what the browser lays out by.
 */
import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { ArchiveItem } from '@lectern/core';
import { ReaderFooter } from '../src/features/reader/ReaderFooter.tsx';

const item = (page_progression: 'ltr' | 'rtl') => ({ previous_chapter_uri: 'a.xhtml', next_chapter_uri: 'c.xhtml', page_progression }) as unknown as ArchiveItem;

function renderFooter(progression: 'ltr' | 'rtl') {
  render(
    <MemoryRouter>
      <ReaderFooter item={item(progression)} percent={40} pages={{ index: 1, count: 5 }} readerPath={(p) => `/read/${p}`} />
    </MemoryRouter>,
  );
  const nav = screen.getByRole('navigation', { name: 'Chapters' });
  const icon = (name: RegExp) => screen.getByRole('link', { name }).querySelector('svg')!.outerHTML;
  return { nav, previousIcon: icon(/Previous/), nextIcon: icon(/Next chapter/) };
}

describe('the chapter bar', () => {
  it('runs right to left for a right-to-left book, its arrows pointing the way the chapters go', () => {
    const ltr = renderFooter('ltr');
    expect(ltr.nav.getAttribute('dir')).toBeNull();
    const ltrIcons = { previous: ltr.previousIcon, next: ltr.nextIcon };
    document.body.innerHTML = '';
    const rtl = renderFooter('rtl');
    expect(rtl.nav.getAttribute('dir')).toBe('rtl');
    // the arrows swap: previous points right, next points left
    expect(rtl.previousIcon).toBe(ltrIcons.next);
    expect(rtl.nextIcon).toBe(ltrIcons.previous);
    // reading order stays previous, position, next
    expect(rtl.nav.textContent).toMatch(/Previous.*Page 2 of 5.*Next chapter/);
  });
});
