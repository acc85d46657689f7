/**
 * Addresses of the contract, built in one place. The server uses them to fill `api_url`, `url`, `continue_url`
 * and chapter urls; the web app uses them to link. Segments are percent-encoded per path segment so chapter
 * paths with folders keep their slashes.
 */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export const paths = {
  bookApi: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/`,
  chapterApi: (bookId: string, fullPath: string) =>
    `/api/v1/book/${encodeURIComponent(bookId)}/chapter/${encodePath(fullPath)}`,
  cover: (bookId: string) => `/api/v1/book/${encodeURIComponent(bookId)}/cover`,
  /** reader.md §2: /library/view/{title_safe}/{book_id}/{chapter_full_path} */
  reader: (titleSafe: string, bookId: string, fullPath?: string) =>
    `/library/view/${encodeURIComponent(titleSafe)}/${encodeURIComponent(bookId)}/${fullPath ? encodePath(fullPath) : ''}`,
  titlePage: (bookId: string) => `/library/book/${encodeURIComponent(bookId)}/`,
  topic: (slug: string) => `/topics/${encodeURIComponent(slug)}`,
  publisher: (slug: string) => `/library/publisher/${encodeURIComponent(slug)}/`,
} as const;
