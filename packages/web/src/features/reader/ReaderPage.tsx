/**
 * Chapter reading page (/library/view/:titleSafe/:bookId/*). Plain rendering: the book title, the chapter
 * heading, the chapter in its sandboxed frame (or the PDF), and Previous / Next chapter links. The full reader
 * (table of contents panel, display settings, paging, progress) builds on this later.
 */
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { MESSAGES, paths, type ChapterContent } from '@lectern/core';
import { ButtonLink } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { isApiError } from '../../api/client.ts';
import { NotFoundPage } from '../../app/NotFoundPage.tsx';
import { appPaths } from '../../app/links.ts';
import { useBook } from '../title/useBook.ts';
import { useSession } from '../account/useSession.ts';
import { ChapterFrame } from './ChapterFrame.tsx';
import { useChapter, usePrefetchChapter } from './useChapter.ts';
import './ReaderPage.css';

function SignInPanel({ bookId }: { bookId: string }) {
  const location = useLocation();
  const book = useBook(bookId);
  return (
    <div className="reader reader--gate">
      <title>Sign in to read · Lectern</title>
      <div className="reader-gate">
        <span className="reader-gate__icon" aria-hidden="true">
          <Icon name="lock" size={28} />
        </span>
        <h1 className="reader-gate__heading">{book.data ? book.data.title : 'Sign in to keep reading'}</h1>
        <p className="reader-gate__message">{MESSAGES.signInToRead}</p>
        <div className="reader-gate__actions">
          <ButtonLink to={appPaths.login(location.pathname + location.search + location.hash)} size="lg">
            Sign in
          </ButtonLink>
          {book.data ? (
            <ButtonLink to={paths.titlePage(bookId)} variant="secondary" size="lg">
              Back to the title
            </ButtonLink>
          ) : null}
        </div>
      </div>
    </div>
  );
}

function ChapterNav({ chapter }: { chapter: ChapterContent }) {
  const prev = chapter.previous_chapter_uri;
  const next = chapter.next_chapter_uri;
  if (!prev && !next) return null;
  return (
    <nav className="reader__pager" aria-label="Chapters">
      {prev ? (
        <Link className="reader__pager-link reader__pager-link--prev" rel="prev" to={paths.reader(chapter.title_safe, chapter.book_id, prev)}>
          <Icon name="chevron-left" size={18} />
          Previous
        </Link>
      ) : (
        <span />
      )}
      {next ? (
        <Link className="reader__pager-link reader__pager-link--next" rel="next" to={paths.reader(chapter.title_safe, chapter.book_id, next)}>
          Next chapter
          <Icon name="chevron-right" size={18} />
        </Link>
      ) : null}
    </nav>
  );
}

function PdfView({ chapter, fileUrl }: { chapter: ChapterContent; fileUrl: string }) {
  return (
    <div className="reader__pdf">
      <object data={fileUrl} type="application/pdf" className="reader__pdf-object" aria-label={chapter.label}>
        <div className="reader__pdf-fallback">
          <p>This browser cannot show the PDF here.</p>
          <a href={fileUrl} download>
            <Icon name="download" size={16} /> Download the PDF
          </a>
        </div>
      </object>
      <p className="reader__pdf-download">
        <a href={fileUrl} download>
          <Icon name="download" size={16} /> Download the PDF
        </a>
      </p>
    </div>
  );
}

function ReaderSkeleton() {
  return (
    <div className="reader">
      <div className="reader__head" aria-hidden="true">
        <Skeleton style={{ width: '12rem', height: '0.9rem' }} />
        <Skeleton style={{ width: '18rem', maxWidth: '80%', height: '1.1rem', marginTop: 8 }} />
      </div>
      <div className="reader__loading">
        <Spinner size="lg" label="Loading chapter…" />
      </div>
    </div>
  );
}

function Chapter({ bookId, fullPath }: { bookId: string; fullPath: string }) {
  const chapter = useChapter(bookId, fullPath);
  const { profile } = useSession();
  // Anonymous visitors may read samples only; fetching the next chapter ahead would mostly earn a 401.
  usePrefetchChapter(bookId, profile ? chapter.data?.next_chapter_uri : null);

  if (chapter.isPending) return <ReaderSkeleton />;
  if (chapter.isError) {
    const status = isApiError(chapter.error) ? chapter.error.status : 0;
    if (status === 401) return <SignInPanel bookId={bookId} />;
    if (status === 404) return <NotFoundPage message="We could not find that chapter." />;
    return (
      <div className="reader">
        <ErrorState message={chapter.error.message} onRetry={() => void chapter.refetch()} retrying={chapter.isRefetching} />
      </div>
    );
  }

  const c = chapter.data;
  const pdfUrl = c.content_type === 'application/pdf' && c.file_url ? c.file_url : null;
  return (
    <article className="reader" aria-labelledby="chapter-heading">
      <title>{`${c.label} · ${c.title} · Lectern`}</title>
      <header className="reader__head">
        <p className="reader__book">
          <Link to={paths.titlePage(c.book_id)}>{c.title}</Link>
        </p>
        <h1 id="chapter-heading" className="reader__chapter">
          {c.label}
        </h1>
      </header>
      {pdfUrl ? <PdfView chapter={c} fileUrl={pdfUrl} /> : <ChapterFrame key={`${c.book_id}/${c.full_path}`} chapter={c} />}
      <ChapterNav chapter={c} />
    </article>
  );
}

function FirstChapter({ bookId }: { bookId: string }) {
  const book = useBook(bookId);
  if (book.isPending) return <ReaderSkeleton />;
  if (book.isError) {
    if (isApiError(book.error) && book.error.status === 404) return <NotFoundPage message="We could not find that book." />;
    return (
      <div className="reader">
        <ErrorState message={book.error.message} onRetry={() => void book.refetch()} retrying={book.isRefetching} />
      </div>
    );
  }
  const first = book.data.chapters[0];
  if (!first) {
    return (
      <div className="reader">
        <EmptyState title="This title has no chapters yet.">
          <Link to={paths.titlePage(bookId)}>Back to the title</Link>
        </EmptyState>
      </div>
    );
  }
  return <Navigate replace to={paths.reader(book.data.title_safe, book.data.book_id, first.full_path)} />;
}

export function ReaderPage() {
  const params = useParams();
  const bookId = params.bookId ?? '';
  // reader.md §2: the query part of the chapter uri is dropped (the splat never carries it).
  const fullPath = (params['*'] ?? '').replace(/\/+$/, '');
  if (!fullPath) return <FirstChapter bookId={bookId} />;
  return <Chapter key={`${bookId}/${fullPath}`} bookId={bookId} fullPath={fullPath} />;
}

export default ReaderPage;
