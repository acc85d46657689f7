/** The reader's and the players' query keys: a title's chapter, its contents and its chapter progress. */
export const readerKeys = {
  chapter: (bookId: string, href: string, userId: string | null) => ['reader-chapter', bookId, href, userId ?? 'anonymous'] as const,
  toc: (bookId: string, href: string) => ['reader-toc', bookId, href] as const,
  progress: (bookId: string) => ['reader-progress', bookId] as const,
  scriptsConsent: (bookId: string) => ['reader-scripts-consent', bookId] as const,
};
