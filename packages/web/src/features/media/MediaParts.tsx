/** Small parts both players show: the session's notices, the preview's end, the speed labels. */
import { MEDIA_MESSAGES, PLAYBACK_SPEEDS, paths, type BookDetail } from '@lectern/core';
import { Link } from 'react-router';
import { appPaths } from '../../shared/links.ts';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';
import type { Notices } from './MediaPage.tsx';

/** reader.md §9's speeds as the menu shows them: ".5×", "1×", "1.25×". */
export const speedLabel = (s: number) => `${String(s).replace(/^0\./, '.')}×`;

/** The playback speed select both players show (reader.md §9's speeds). */
export function SpeedSelect({ rate, onChange }: { rate: number; onChange: (rate: number) => void }) {
  return (
    <label className="media-speed">
      <span>{MEDIA_MESSAGES.speed}</span>
      <select value={String(rate)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {PLAYBACK_SPEEDS.map((s) => (
          <option key={s} value={String(s)}>
            {speedLabel(s)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "Forbidden" (reader.md §6) or the session timeout's sentences (§8), above the player, announced once. */
export function MediaNotices({ notices }: { notices: Notices }) {
  if (!notices.title && !notices.lines.length) return null;
  return (
    <div className="media-notice" role="alert">
      <ReaderIcon name="alert" size={20} />
      <div>
        {notices.title ? <p className="media-notice__title">{notices.title}</p> : null}
        {notices.lines.map((l) => (
          <p key={l}>{l}</p>
        ))}
      </div>
    </div>
  );
}

/** reader.md §8: the preview's end ("The preview has ended."), and for a visitor the way to the whole. */
export function PreviewEnded({ signedIn, book, href }: { signedIn: boolean; book: BookDetail; href: string }) {
  const here = paths.reader(book.title_safe, book.book_id, href);
  return (
    <div className="media-stage__overlay media-ended" role="status">
      <p className="media-ended__title">{MEDIA_MESSAGES.previewEnded}</p>
      <p>{MEDIA_MESSAGES.forbiddenClip}</p>
      {signedIn ? (
        <Link className="media-btn media-btn--primary" to={appPaths.subscribe()}>
          Subscribe
        </Link>
      ) : (
        <p className="media-ended__actions">
          <span>{MEDIA_MESSAGES.signInForFull}</span>
          <Link className="media-btn media-btn--primary" to={appPaths.login(here)}>
            Sign in
          </Link>
        </p>
      )}
    </div>
  );
}
