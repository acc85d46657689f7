import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { ContentMetadata } from '@lectern/core';
import { TitleCard } from '../src/shared/TitleCard.tsx';

const sample: ContentMetadata = {
  api_url: '/api/v1/book/9781449373320/',
  authors: ['Martin Kleppmann'],
  content_format: 'book',
  continue_url: '/library/view/designing-data-intensive-applications/9781449373320/',
  cover_image_url: '/api/v1/book/9781449373320/cover',
  identifier: '9781449373320',
  issued: '2017-03-16',
  publishers: ["O'Reilly Media, Inc."],
  title: 'Designing Data-Intensive Applications',
  topics: [
    { name: 'Databases', slug: 'databases' },
    { name: 'Distributed Systems', slug: 'distributed-systems' },
  ],
  url: '/library/book/9781449373320/',
  book_id: '9781449373320',
  title_safe: 'designing-data-intensive-applications',
  description: 'The big ideas behind reliable, scalable and maintainable systems.',
};

const renderCard = (title: ContentMetadata) =>
  render(
    <MemoryRouter>
      <TitleCard title={title} />
    </MemoryRouter>,
  );

describe('TitleCard', () => {
  it('shows cover, type label, title link, byline, publisher line, topics and Start', () => {
    renderCard(sample);
    const card = screen.getByRole('article');

    const cover = within(card).getByAltText(sample.title);
    // The spec's 360h variant, not the book's own cover (which can weigh 800 KB).
    expect(cover.getAttribute('src')).toBe(`${sample.cover_image_url}?h=360`);
    expect(cover.getAttribute('loading')).toBe('lazy');

    expect(within(card).getByText('BOOK')).toBeTruthy();

    const heading = within(card).getByRole('heading', { level: 2 });
    const titleLink = within(heading).getByRole('link', { name: sample.title });
    expect(titleLink.getAttribute('href')).toBe(sample.url);
    expect(heading.className).not.toContain('shrink');

    expect(within(card).getByText('by Martin Kleppmann')).toBeTruthy();
    expect(within(card).getByText("March 2017 · O'Reilly Media, Inc.")).toBeTruthy();

    const topics = within(card).getByRole('list', { name: 'Topics' });
    const topicLinks = within(topics).getAllByRole('link');
    expect(topicLinks.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Databases', '/topics/databases'],
      ['Distributed Systems', '/topics/distributed-systems'],
    ]);

    const start = within(card).getByRole('link', { name: `Start ${sample.title}` });
    expect(start.textContent).toBe('Start');
    expect(start.getAttribute('href')).toBe(sample.continue_url);
  });

  it('shrinks long titles, labels other formats and draws a typographic cover without an image', () => {
    const long = 'A very long title about distributed systems, consensus, replication and the art of partitioning data';
    renderCard({ ...sample, title: long, cover_image_url: null, content_format: 'document', authors: [], topics: [] });
    const card = screen.getByRole('article');
    expect(within(card).getByRole('heading', { level: 2 }).className).toContain('title-card__title--shrink');
    expect(within(card).getByText('DOCUMENT')).toBeTruthy();
    expect(within(card).getByRole('img', { name: long })).toBeTruthy();
    expect(within(card).queryByText(/^by /)).toBeNull();
    expect(within(card).queryByRole('list', { name: 'Topics' })).toBeNull();
  });

  it("shows the reader's progress the book list brings and says Continue, also for a position read under 1 %", () => {
    const chapter = '/library/view/designing-data-intensive-applications/9781449373320/ch03.xhtml';
    const { unmount } = renderCard({ ...sample, continue_url: chapter, progress: 42, resumes: true });
    let card = screen.getByRole('article');
    const go = within(card).getByRole('link', { name: `Continue ${sample.title}` });
    expect(go.getAttribute('href')).toBe(chapter);
    expect(within(card).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('42');
    unmount();

    renderCard({ ...sample, continue_url: chapter, progress: 0, resumes: true });
    card = screen.getByRole('article');
    expect(within(card).getByRole('link', { name: `Continue ${sample.title}` })).toBeTruthy();
    expect(within(card).queryByRole('progressbar')).toBeNull();
  });
});
