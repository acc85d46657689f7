/**
 * The global error bar (library-playlists-account.md §8): 'Oops! {message}', shown only within 5 s of the
 * error's timestamp. It re-renders itself when the 5 s are up, so it also hides when nothing else changes.
 */
import { useEffect, useReducer } from 'react';
import { errorBarVisible, PLAYLIST_TIMINGS } from '@lectern/core';
import { clearError, useErrorState } from '../shared/errorState.ts';
import './ErrorBar.css';

export function ErrorBar() {
  const error = useErrorState();
  const [, tick] = useReducer((n: number) => n + 1, 0);
  const visible = error.didError && errorBarVisible(error.timestamp, Date.now());

  useEffect(() => {
    if (!error.didError) return;
    const left = error.timestamp + PLAYLIST_TIMINGS.errorBarMs - Date.now();
    if (left <= 0) return;
    const timer = setTimeout(tick, left);
    return () => clearTimeout(timer);
  }, [error]);

  return (
    <div className="error-bar-region" role="alert" aria-live="assertive">
      {visible ? (
        <div className={`error-bar error-bar--${error.errorLevel === 'FATAL' ? 'fatal' : 'warn'}`} key={error.timestamp}>
          <p className="error-bar__text">Oops! {error.message}</p>
          <button type="button" className="error-bar__close" aria-label="Dismiss" onClick={clearError}>
            <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </div>
      ) : null}
    </div>
  );
}
