import type { AccountProfile, Collection, ContentMetadata } from '@lectern/core';

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
