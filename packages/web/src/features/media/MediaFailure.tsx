/**
 * reader.md §2: "A video-failure message page blames blockers and network problems and points to support." Shown
 * when the player cannot play the part (and a new session did not help) or the part cannot be had. Support is the
 * operator's SUPPORT_EMAIL (GET /api/v1/player/support/), a mailto link whose subject names the title and chapter;
 * without one (or while it is asked for) the sentence says "contact support" without an address.
 */
import { MEDIA_MESSAGES, paths, type BookDetail } from '@lectern/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getMediaSupport } from '../../api/media.ts';
import { queryKeys } from '../../api/queryKeys.ts';

export function MediaFailure({ book, chapter, message }: { book: BookDetail; chapter?: string; message?: string }) {
  const support = useQuery({ queryKey: queryKeys.mediaSupport, queryFn: ({ signal }) => getMediaSupport(signal), staleTime: 5 * 60_000, retry: 1 });
  const email = support.data?.support_email ?? null;
  const mailto = email ? `mailto:${email}?subject=${encodeURIComponent(MEDIA_MESSAGES.failureSupportSubject(book.title, chapter ?? ''))}` : null;
  return (
    <section className="media-failure" role="alert" aria-labelledby="media-failure-heading">
      <h1 id="media-failure-heading" className="media-failure__heading">
        {MEDIA_MESSAGES.failureHeading}
      </h1>
      {message ? <p className="media-failure__detail">{message}</p> : null}
      <ul className="media-failure__list">
        <li>{MEDIA_MESSAGES.failureBlockers}</li>
        <li>{MEDIA_MESSAGES.failureNetwork}</li>
        {email && mailto ? (
          <li>
            {MEDIA_MESSAGES.failureSupportAt}{' '}
            <a className="media-link" href={mailto}>
              {email}
            </a>{' '}
            {MEDIA_MESSAGES.failureSupportAtEnd}
          </li>
        ) : (
          <li>{MEDIA_MESSAGES.failureSupport}</li>
        )}
      </ul>
      <p className="media-failure__actions">
        <button type="button" className="media-btn" onClick={() => window.location.reload()}>
          Reload the page
        </button>
        <Link className="media-link" to={paths.titlePage(book.book_id)}>
          Back to {book.title}
        </Link>
      </p>
    </section>
  );
}
