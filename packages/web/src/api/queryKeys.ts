/** React-query keys of every server read, in one place so features invalidate the same keys they read. */
import type { BookListParams } from './client.ts';

export const queryKeys = {
  profile: ['profile'] as const,
  /** whether single-key shortcuts are on, per signed-in reader */
  shortcutSetting: (userId: string) => ['shortcut-setting', userId] as const,
  /** the signed-in reader's team (GET /api/v1/team/) */
  team: ['team'] as const,
  books: (filter: Omit<BookListParams, 'page'>) => ['books', filter] as const,
  allBooks: ['books'] as const,
  book: (bookId: string) => ['book', bookId] as const,
  /** a title's format alone, for the reader address to pick the book reader or a media player (router.tsx) */
  titleFormat: (bookId: string) => ['title-format', bookId] as const,
  chapter: (bookId: string, fullPath: string) => ['chapter', bookId, fullPath] as const,
  /** where the video-failure page points (GET /api/v1/player/support/) */
  mediaSupport: ['media-support'] as const,
  topics: ['topics'] as const,
  /** the two plans as the operator named and priced them (GET plans; admin SellingPage edits them) */
  plans: ['plans'] as const,
  /** the home dashboard, per signed-in reader ('' for a visitor) */
  home: (userId: string) => ['home', userId] as const,
  homeModules: (userId: string) => ['home-modules', userId] as const,
  newsletterSample: () => ['newsletter-sample'] as const,
  recentTitles: () => ['recent-titles'] as const,
  /** the editors' transformation playlists, of a topic ('' for the home's), per reader (cards carry progress) */
  transformationPlaylists: (topic: string, userId: string) => ['transformation-playlists', topic, userId] as const,
  /** a reader's annotations of a book (the notes panel); ['annotations', bookId] covers every reader's */
  annotations: (bookId: string, userId?: string) => (userId === undefined ? (['annotations', bookId] as const) : (['annotations', bookId, userId] as const)),
  publisher: (slug: string) => ['publisher', slug] as const,
  /** the signed-in reader's stored position in a book (GET /api/v1/book/{id}/position/) */
  position: (bookId: string, userId: string) => ['position', bookId, userId] as const,
  /** the live-training banner's current event, per signed-in reader ('' for a visitor) */
  liveCurrent: (userId: string) => ['live-training', 'current', userId] as const,
  /** the live-training courses (all, one topic's: topic, or one course: course_id) */
  liveCourses: (filter: { topic?: string; course_id?: string }) => ['live-training', 'courses', filter] as const,
};
