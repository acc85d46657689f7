import { ANNOTATION_TYPE_NOTE, paths, type AccountProfile, type Annotation, type CatalogSearchResponse, type Collection, type ContentMetadata } from '@lectern/core';

export const profile: AccountProfile = {
  user_id: 7,
  session_id: 's-1',
  user_uuid: '7d2f0f5c-8f0e-4a53-9d43-1d1a3c1d2e3f',
  username: 'ada',
  subscription_status: 'subscriber',
  account: { type: 'Subscriber', email: 'ada@example.com', roles: [], team: null, trial_ends_at: null },
};

export const item = (bookId: string, topics: [string, string][] = []) => ({
  api_url: `/api/v1/book/${bookId}/`,
  metadata: { topics: topics.map(([slug, name]) => ({ slug, name })) },
});

export function playlist(id: string, name: string, content: ReturnType<typeof item>[] = [], extra: Partial<Collection> = {}): Collection {
  return {
    id,
    name,
    description: '',
    is_default: false,
    is_owned: true,
    content,
    url: `/c/collection/${id}/`,
    created: '2030-01-01T00:00:00Z',
    modified: '2030-01-01T00:00:00Z',
    ...extra,
  };
}

export const queue = (content: ReturnType<typeof item>[] = []) => playlist('q', 'Queue', content, { is_default: true, url: '/c/' });

export const title = (bookId: string, name = `Title ${bookId}`): ContentMetadata => ({
  api_url: `/api/v1/book/${bookId}/`,
  authors: ['Ada Lovelace'],
  content_format: 'book',
  continue_url: `/library/view/t-${bookId}/${bookId}/`,
  cover_image_url: null,
  identifier: bookId,
  issued: '2020-05',
  publishers: ['Lectern Press'],
  title: name,
  topics: [{ slug: 'python', name: 'Python' }],
  url: `/library/book/${bookId}/`,
  book_id: bookId,
  title_safe: `t-${bookId}`,
  description: null,
});

/** A reader's own private note in chapter `chapter_href` of book b1, as the store answers it; what a test cares about over it. */
export const storedNote = (id: string, chapter_href: string, over: Partial<Annotation> = {}): Annotation => ({
  id,
  quote: '',
  ranges: [],
  selectors: [],
  text: '',
  tags: [],
  uri: paths.reader('x', 'b1', chapter_href),
  user: profile.user_uuid,
  consumer: 'lectern',
  permissions: { read: [profile.user_uuid], update: [], delete: [], admin: [] },
  created: '2030-01-01T00:00:00Z',
  updated: '2030-01-01T00:00:00Z',
  links: [],
  truncated_quote: over.quote ?? '',
  fragment: '',
  sanitized_fragment: '',
  highlights: [],
  is_public: false,
  card_url: null,
  annotation_type: ANNOTATION_TYPE_NOTE,
  preview_annotation: false,
  book_id: 'b1',
  chapter_href,
  ...over,
});

/** A search for "whale" with two titles, one with a cover and one without: what the search screen renders. */
export const whaleSearch = (facets: Partial<CatalogSearchResponse['facets']> = {}): CatalogSearchResponse => ({
  query: 'whale',
  count: 2,
  count_exact: true,
  page: 1,
  next: null,
  previous: null,
  results: [
    { metadata: { ...title('moby', 'Moby-Dick'), cover_image_url: '/api/v1/book/moby/cover' }, snippet: null, passages: [], language: 'en' },
    { metadata: { ...title('plain', 'No Cover'), cover_image_url: null }, snippet: null, passages: [], language: 'en' },
  ],
  facets: { format: [], topic: [], publisher: [], language: [], ...facets },
});
