/**
 * The app-wide error state of library-playlists-account.md §3 ("Error state") and §8: the last API error with
 * its level, message, status and address. Every API error is WARN except the playlist list fetch (FATAL). The
 * global error bar reads it; it lives outside React so API helpers can report without a component at hand.
 */
import { useSyncExternalStore } from 'react';
import { isApiError } from '../api/client.ts';

export type ErrorLevel = 'FATAL' | 'WARN';

export interface ErrorState {
  didError: boolean;
  errorLevel: ErrorLevel | null;
  message: string;
  responseText: string;
  statusCode: number | null;
  statusText: string;
  url: string;
  timestamp: number;
}

export const NO_ERROR: ErrorState = {
  didError: false,
  errorLevel: null,
  message: '',
  responseText: '',
  statusCode: null,
  statusText: '',
  url: '',
  timestamp: 0,
};

let state: ErrorState = NO_ERROR;
const listeners = new Set<() => void>();

function set(next: ErrorState) {
  state = next;
  for (const l of listeners) l();
}

/** Records an error; `cause` (an ApiError) supplies status code, status text, response text and address. */
export function reportError(level: ErrorLevel, message: string, cause?: unknown, now = Date.now()): ErrorState {
  const api = isApiError(cause) ? cause : null;
  const next: ErrorState = {
    didError: true,
    errorLevel: level,
    message,
    responseText: api?.detail ?? (cause instanceof Error ? cause.message : ''),
    statusCode: api ? api.status : null,
    statusText: api?.statusText ?? '',
    url: api?.url ?? '',
    timestamp: now,
  };
  set(next);
  return next;
}

export const clearError = () => set(NO_ERROR);
export const getErrorState = () => state;

export function subscribeErrors(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const useErrorState = (): ErrorState => useSyncExternalStore(subscribeErrors, getErrorState, getErrorState);
