/**
 * The live-training notification banner (library-playlists-account.md §2, §4): 'Online training starting soon' with
 * 'Go to course' before the event starts, 'Online Training in Progress' with 'Join now' until it ends; dismissed per
 * event and remembered in this browser. A labelled region with a heading; its changes are announced politely.
 * The shell shows it on every page but the reader, which has its own (`variant="reader"`, polled every 12 minutes).
 */
import { isHttpUrl, LIVE_TRAINING_MESSAGES as M, relativeTime } from '@lectern/core';
import { useId } from 'react';
import { ButtonLink } from '../../components/Button.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useNow } from '../../components/RelativeTime.tsx';
import { track } from '../analytics.ts';
import { toAppPath } from '../links.ts';
import { type LiveBannerState, useLiveBanner } from './useLiveBanner.ts';
import './LiveTrainingBanner.css';

/** "in 10 minutes", "in 3 hours", "in 2 days": when, from now (§9 relative time thresholds, core's relativeTime). */
export const formatWhen = (at: number, now: number): string => relativeTime(at, now);

export function LiveTrainingBannerView({ state, variant = 'site', now = Date.now() }: { state: LiveBannerState; variant?: 'site' | 'reader'; now?: number }) {
  const headingId = useId();
  const { course, event, phase } = state;
  const live = phase === 'live';
  const courseUrl = toAppPath(course.url);
  // 'Join now' leads to the session only when the server gave its address (a live subscription) and it is http(s);
  // otherwise to the course page, which says how to join.
  const join = live && event.join_url && isHttpUrl(event.join_url) ? event.join_url : null;
  const presenters = event.presenters.map((p) => p.name).join(', ');
  const when = live ? M.endsAt(new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' }).format(Date.parse(event.end_datetime))) : M.startsAt(formatWhen(Date.parse(event.start_datetime), now));
  return (
    <section className={`live-banner live-banner--${variant} live-banner--${phase}`} aria-labelledby={headingId}>
      <div className="live-banner__inner">
        <span className="live-banner__pulse" aria-hidden="true" />
        <div className="live-banner__text" role="status">
          <h2 id={headingId} className="live-banner__heading">
            {live ? M.inProgress : M.startingSoon}
          </h2>
          <p className="live-banner__detail">
            <span className="live-banner__course">{course.title}</span>
            <span className="live-banner__when">
              {' · '}
              {when}
              {presenters ? ` · ${M.presentedBy(presenters)}` : ''}
            </span>
          </p>
        </div>
        <div className="live-banner__actions">
          {join ? (
            <a className="btn btn--primary btn--sm live-banner__action" href={join} target="_blank" rel="noopener noreferrer" onClick={() => track('live-training', 'join', course.slug)}>
              {M.joinNow}
            </a>
          ) : (
            <ButtonLink to={courseUrl} variant="primary" size="sm" className="live-banner__action" onClick={() => track('live-training', 'open-course', course.slug)}>
              {live ? M.joinNow : M.goToCourse}
            </ButtonLink>
          )}
          <button type="button" className="live-banner__dismiss" aria-label={M.dismiss} title={M.dismiss} onClick={state.dismiss}>
            <Icon name="close" size={18} />
          </button>
        </div>
      </div>
    </section>
  );
}

/** The banner where there is a current event this browser has not dismissed; nothing otherwise. */
export function LiveTrainingBanner({ variant = 'site' }: { variant?: 'site' | 'reader' }) {
  const state = useLiveBanner({ poll: variant === 'reader' });
  // "Starts in 10 minutes" is said again each minute
  const now = useNow();
  return state ? <LiveTrainingBannerView state={state} variant={variant} now={now} /> : null;
}
