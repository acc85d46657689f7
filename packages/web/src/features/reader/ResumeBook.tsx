/**
 * The reader's address without a chapter (/library/view/{title}/{book_id}/, the playlists' continue_url): where
 * this reader left the book, in any browser. The newer of the account's position (useServerPosition) and this
 * browser's own; with neither, the book's continue_url, which the server makes by its rule (docs/decisions.md):
 * the sample for those who may not read the whole book, else the first chapter.
 */
import { MESSAGES, paths } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { api, isApiError } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { toAppPath } from '../../shared/links.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { PositionStore } from '../../shared/reading/position.ts';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import { useServerPositionDown } from '../../shared/reading/useServerPosition.ts';

function browserStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

function Shell({ children }: { children: React.ReactNode }) {
  return (
    <div className="reader-app">
      <div className="reader-center">{children}</div>
    </div>
  );
}

function Problem({ title, onRetry }: { title: string; onRetry?: () => void }) {
  return (
    <Shell>
      <div className="reader-message reader-message--error" role="alert">
        <span className="reader-message__icon" aria-hidden="true">
          <ReaderIcon name="alert" size={26} />
        </span>
        <p className="reader-message__title">{title}</p>
        {onRetry ? (
          <button type="button" className="reader-chip" onClick={onRetry}>
            Try again
          </button>
        ) : null}
      </div>
    </Shell>
  );
}

export function ResumeBook({ bookId, userId }: { bookId: string; userId: string | null }) {
  // Fresh each time: continue_url depends on the account's state (a sample, a position).
  const book = useQuery({ queryKey: queryKeys.book(bookId), queryFn: ({ signal }) => api.getBook(bookId, signal), staleTime: 0, retry: 1 });
  const server = useServerPositionDown(bookId, userId);
  if (book.isPending || !server.ready) {
    return (
      <Shell>
        <Spinner size="lg" label="Loading book…" />
      </Shell>
    );
  }
  if (book.isError) {
    if (isApiError(book.error) && book.error.status === 404) return <NotFoundPage message="We could not find that book." />;
    return <Problem title={book.error.message} onRetry={() => void book.refetch()} />;
  }
  const b = book.data;
  // The server's position, when newer, is in the local store by now (useServerPositionDown): one place to look.
  const lastRead = new PositionStore(browserStorage()).latestHref(bookId);
  const chapter = b.chapters.find((c) => c.full_path === lastRead);
  if (chapter) return <Navigate replace to={paths.reader(b.title_safe, b.book_id, chapter.full_path)} />;
  const target = toAppPath(b.continue_url);
  // A continue_url without a chapter is this very address (a book without chapters): do not go round in circles.
  if (!b.chapters.length || target === paths.reader(b.title_safe, b.book_id)) return <Problem title={MESSAGES.bookStillLoading} />;
  return <Navigate replace to={target} />;
}
