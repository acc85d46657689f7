/**
 * Addresses of the contract, built in one place. The server uses them to fill `api_url`, `url`, `continue_url`
 * and chapter urls; the web app uses them to link. Segments are percent-encoded per path segment so chapter
 * paths with folders keep their slashes.
 */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export const paths = {
  /** GET /api/v1/book/: the catalog list (its `next` and `previous` links start here too) */
  bookList: () => '/api/v1/book/',
  bookApi: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/`,
  chapterApi: (bookId: string, fullPath: string) => `${paths.chapterApiPrefix(bookId)}${encodePath(fullPath)}`,
  /** What every chapter address of a book starts with (the reader frame resolves links against it). */
  chapterApiPrefix: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/chapter/`,
  /**
   * reader.md §3's slash-less form: "a path of the form api/v1/book/{book_id}/chapter/{chapter_href}". The href is
   * written as stored (not re-encoded), as the archive endpoints have always sent it.
   */
  chapterArchive: (bookId: string, href: string) => `api/v1/book/${bookId}/chapter/${href}`,
  /** GET /api/v1/book/{book_id}/chapter-progress/ */
  chapterProgress: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/chapter-progress/`,
  /** GET /api/v1/book/{book_id}/scripted-frame/?path=: a scripted title's chapter frame (docs/decisions.md "Scripted titles") */
  scriptedFrame: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/scripted-frame/`,
  cover: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/cover`,
  /** GET /api/v1/player/kaltura_session/?reference_id=: the video session of a media title (reader.md §7) */
  mediaSession: (bookId: string) => `/api/v1/player/kaltura_session/?reference_id=${encodeURIComponent(bookId)}`,
  /** GET|HEAD /api/v1/media/{book_id}/{href}: a media part's stream, without its `?ks=` (media.ts ChapterMedia) */
  mediaStream: (bookId: string, fullPath: string) => `/api/v1/media/${encodeURIComponent(bookId)}/${encodePath(fullPath)}`,
  /** the part's captions (WebVTT) */
  mediaCaptions: (bookId: string, fullPath: string) => `${paths.mediaStream(bookId, fullPath)}/captions.vtt`,
  /** the title's preview clip, for anyone */
  mediaPreview: (bookId: string) => `/api/v1/media/${encodeURIComponent(bookId)}/preview`,
  /** reader.md §2: /library/view/{title_safe}/{book_id}/{chapter_full_path} */
  reader: (titleSafe: string, bookId: string, fullPath?: string) =>
    `/library/view/${encodeURIComponent(titleSafe)}/${encodeURIComponent(bookId)}/${fullPath ? encodePath(fullPath) : ''}`,
  titlePage: (bookId: string) => `/library/book/${encodeURIComponent(bookId)}/`,
  topic: (slug: string) => `/topics/${encodeURIComponent(slug)}`,
  publisher: (slug: string) => `/library/publisher/${encodeURIComponent(slug)}/`,
} as const;
