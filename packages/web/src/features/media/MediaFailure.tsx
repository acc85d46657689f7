/**
 * reader.md §2: "A video-failure message page blames blockers and network problems and points to support." Shown
 * when the player cannot play the part (and a new session did not help) or the part cannot be had.
 */
import { MEDIA_MESSAGES, paths, type BookDetail } from '@lectern/core';
import { Link } from 'react-router';

export function MediaFailure({ book, message }: { book: BookDetail; message?: string }) {
  return (
    <section className="media-failure" role="alert" aria-labelledby="media-failure-heading">
      <h1 id="media-failure-heading" className="media-failure__heading">
        {MEDIA_MESSAGES.failureHeading}
      </h1>
      {message ? <p className="media-failure__detail">{message}</p> : null}
      <ul className="media-failure__list">
        <li>{MEDIA_MESSAGES.failureBlockers}</li>
        <li>{MEDIA_MESSAGES.failureNetwork}</li>
        <li>{MEDIA_MESSAGES.failureSupport}</li>
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
