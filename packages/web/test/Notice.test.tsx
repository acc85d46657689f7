import { NOTICE_FADE_MS } from '@lectern/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Notice } from '../src/components/Notice.tsx';

describe('notices (library-playlists-account.md §4: close on click; success and info fade after 15 s)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it.each(['success', 'info'] as const)('a %s notice fades after 15 s and is gone', (tone) => {
    render(<Notice tone={tone}>Saved.</Notice>);
    act(() => {
      vi.advanceTimersByTime(NOTICE_FADE_MS - 1);
    });
    expect(screen.getByText('Saved.').closest('.notice')!.className).not.toContain('notice--fading');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByText('Saved.').closest('.notice')!.className).toContain('notice--fading');
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(screen.queryByText('Saved.')).toBeNull();
  });

  it.each(['error', 'alert'] as const)('an %s notice stays until it is clicked, and is announced at once', (tone) => {
    render(<Notice tone={tone}>Went wrong.</Notice>);
    expect(screen.getByRole('alert').textContent).toContain('Went wrong.');
    act(() => {
      vi.advanceTimersByTime(NOTICE_FADE_MS * 4);
    });
    expect(screen.queryByText('Went wrong.')).not.toBeNull();
    fireEvent.click(screen.getByText('Went wrong.'));
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(screen.queryByText('Went wrong.')).toBeNull();
  });

  it('closes from its button (keyboards), and a new message in its place shows again', () => {
    const { rerender } = render(<Notice tone="error">First.</Notice>);
    fireEvent.click(screen.getByRole('button', { name: 'Close notice' }));
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(screen.queryByText('First.')).toBeNull();
    rerender(<Notice tone="error">Second.</Notice>);
    expect(screen.queryByText('Second.')).not.toBeNull();
  });

  it('a link inside still leads where it goes without closing the notice first', () => {
    render(
      <Notice tone="error">
        Expired. <a href="#renew">Renew</a>
      </Notice>,
    );
    fireEvent.click(screen.getByText('Renew'));
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(screen.queryByText('Renew')).not.toBeNull();
  });

  it('one that explains the page neither fades nor closes', () => {
    render(
      <Notice tone="info" dismissible={false}>
        Please sign in.
      </Notice>,
    );
    expect(screen.queryByRole('button', { name: 'Close notice' })).toBeNull();
    fireEvent.click(screen.getByText('Please sign in.'));
    act(() => {
      vi.advanceTimersByTime(NOTICE_FADE_MS * 2);
    });
    expect(screen.queryByText('Please sign in.')).not.toBeNull();
  });

  it('the welcome message waits its own time (25 s)', () => {
    render(
      <Notice tone="success" fadeAfterMs={25_000}>
        Welcome.
      </Notice>,
    );
    act(() => {
      vi.advanceTimersByTime(NOTICE_FADE_MS + 1000);
    });
    expect(screen.getByText('Welcome.').closest('.notice')!.className).not.toContain('notice--fading');
    act(() => {
      vi.advanceTimersByTime(25_000 - NOTICE_FADE_MS - 1000);
    });
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(screen.queryByText('Welcome.')).toBeNull();
  });
});
