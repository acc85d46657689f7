/** The reader opened at a book's root: on to the chapter this browser read last in it, else the first one. */
import { MESSAGES, paths } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { isApiError } from '../../api/client.ts';
import { readerApi } from '../../api/reader.ts';
import { NotFoundPage } from '../../shared/NotFoundPage.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { browserStorage } from '../../shared/storage.ts';
import { PositionStore } from './engine/position.ts';
import { Centered, ReaderMessage, RetryMessage } from './ReaderMessage.tsx';
import { readerKeys } from './useReaderChapter.ts';

export function FirstChapter({ bookId }: { bookId: string }) {
  const toc = useQuery({ queryKey: readerKeys.toc(bookId, ''), queryFn: ({ signal }) => readerApi.getToc(bookId, null, signal), staleTime: 10 * 60_000, retry: 1 });
  if (toc.isPending)
    return (
      <div className="reader-app">
        <Centered>
          <Spinner size="lg" label="Loading book…" />
        </Centered>
      </div>
    );
  if (toc.isError) {
    if (isApiError(toc.error) && toc.error.status === 404) return <NotFoundPage message="We could not find that book." />;
    return (
      <div className="reader-app">
        <RetryMessage title={toc.error.message} onRetry={() => void toc.refetch()} />
      </div>
    );
  }
  // Coming back to a book lands where the reader left off: the chapter last read here, else the first one.
  const lastRead = new PositionStore(browserStorage()).latestHref(bookId);
  const first = toc.data.chapters.find((c) => c.uri === lastRead) ?? toc.data.chapters[0];
  if (!first) {
    return (
      <div className="reader-app">
        <ReaderMessage tone="error" title={MESSAGES.bookStillLoading} />
      </div>
    );
  }
  return <Navigate replace to={paths.reader(toc.data.title_safe, toc.data.book_id, first.uri)} />;
}
