import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/client.ts';
import { ErrorBar } from '../src/app/ErrorBar.tsx';
import { clearError, getErrorState, reportError } from '../src/shared/errorState.ts';

describe('global error bar (spec §8: shown only within 5 s of the error timestamp)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2030-01-01T10:00:00Z'));
    clearError();
  });
  afterEach(() => {
    vi.useRealTimers();
    clearError();
  });

  it("shows 'Oops! {message}' and hides it 5 s after the timestamp", () => {
    render(<ErrorBar />);
    expect(screen.queryByText(/Oops!/)).toBeNull();
    act(() => {
      reportError('WARN', 'There was a problem updating your playlist. Please try again soon.');
    });
    expect(screen.getByText('Oops! There was a problem updating your playlist. Please try again soon.')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(4999);
    });
    expect(screen.queryByText(/Oops!/)).not.toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByText(/Oops!/)).toBeNull();
  });

  it('does not show an error whose timestamp is more than 5 s old', () => {
    reportError('FATAL', "Something has gone wrong and we can't display your playlists. Please try again soon.", undefined, Date.now() - 5001);
    render(<ErrorBar />);
    expect(screen.queryByText(/Oops!/)).toBeNull();
  });

  it('shows the remaining time of an error reported before it mounted', () => {
    reportError('WARN', 'Late.', undefined, Date.now() - 3000);
    render(<ErrorBar />);
    expect(screen.getByText('Oops! Late.')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.queryByText('Oops! Late.')).toBeNull();
  });

  it('a new error restarts the 5 s', () => {
    render(<ErrorBar />);
    act(() => void reportError('WARN', 'First.'));
    act(() => {
      vi.advanceTimersByTime(4000);
    });
    act(() => void reportError('WARN', 'Second.'));
    act(() => {
      vi.advanceTimersByTime(4000);
    });
    expect(screen.getByText('Oops! Second.')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(screen.queryByText(/Oops!/)).toBeNull();
  });

  it('records level, status code, status text, response text, url and timestamp (spec §3 "Error state")', () => {
    const cause = new ApiError(404, 'Not found.', {}, '/nest/api/api/v2/collections/9/', 'Not Found');
    reportError('WARN', 'We could not find the playlist that you requested. Please try again soon.', cause);
    expect(getErrorState()).toEqual({
      didError: true,
      errorLevel: 'WARN',
      message: 'We could not find the playlist that you requested. Please try again soon.',
      responseText: 'Not found.',
      statusCode: 404,
      statusText: 'Not Found',
      url: '/nest/api/api/v2/collections/9/',
      timestamp: Date.now(),
    });
  });
});
