/**
 * The shell's timings and pieces (library-playlists-account.md §2, §6, §9), with fake timers: the 2000 ms loading
 * delay before a spinner shows, the account menu folding 200 ms after the mouse leaves it, relative times said
 * again every minute with the §9 thresholds, the scroll-to-top icon for signed-in readers after 200 px, and the
 * expired or cancelled reader's prompt to subscribe or reactivate.
 */
import { ACCOUNT_ENTRY_MESSAGES, APP_MESSAGES, LOADING_DELAY_MS, NAV_COLLAPSE_DELAY_MS, SCROLL_TO_TOP_AFTER_PX, type AccountProfile } from '@lectern/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ScrollTopButton } from '../src/app/ScrollTopButton.tsx';
import { PageLoading } from '../src/components/PageLoading.tsx';
import { RelativeTime } from '../src/components/RelativeTime.tsx';
import { AccountMenu } from '../src/features/account/AccountMenu.tsx';
import { SubscriptionPrompt } from '../src/shared/SubscriptionPrompt.tsx';
import { profile } from './fixtures.ts';

function withSession(ui: ReactNode, who: AccountProfile | null = profile) {
  document.cookie = who ? 'logged_in=1; path=/' : 'logged_in=; path=/; max-age=0';
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(['profile'], who);
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the shell (fake timers)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('shows no spinner before the 2000 ms loading delay, and one after it', () => {
    expect(LOADING_DELAY_MS).toBe(2000);
    const { container } = render(<PageLoading />);
    expect(container.querySelector('.page-loading')!.getAttribute('aria-busy')).toBe('true');
    act(() => {
      vi.advanceTimersByTime(LOADING_DELAY_MS - 1);
    });
    expect(screen.queryByRole('status')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.getByRole('status').textContent).toBe('Loading…');
  });

  it('folds the account menu 200 ms after the mouse leaves it, and not when it comes back in time', () => {
    expect(NAV_COLLAPSE_DELAY_MS).toBe(200);
    withSession(<AccountMenu profile={profile} />);
    const button = screen.getByRole('button', { name: /Account: ada/ });
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const root = button.closest('.menu')!;
    fireEvent.pointerLeave(root, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(NAV_COLLAPSE_DELAY_MS - 1);
    });
    fireEvent.pointerEnter(root, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(NAV_COLLAPSE_DELAY_MS * 5);
    });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    fireEvent.pointerLeave(root, { pointerType: 'mouse' });
    act(() => {
      vi.advanceTimersByTime(NAV_COLLAPSE_DELAY_MS - 1);
    });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    // a finger lifting off (touch) is no leaving
    fireEvent.click(button);
    fireEvent.pointerLeave(root, { pointerType: 'touch' });
    act(() => {
      vi.advanceTimersByTime(NAV_COLLAPSE_DELAY_MS * 5);
    });
    expect(button.getAttribute('aria-expanded')).toBe('true');
  });

  it('says a time relative to now with the §9 thresholds, again every minute, the exact time in its title', () => {
    const start = Date.parse('2026-05-12T10:00:00Z');
    vi.setSystemTime(start);
    render(<RelativeTime at="2026-05-12T09:59:20Z" />);
    const time = screen.getByText('a few seconds ago');
    expect(time.tagName).toBe('TIME');
    expect(time.getAttribute('datetime')).toBe('2026-05-12T09:59:20.000Z');
    expect(time.getAttribute('title')).toMatch(/2026/);
    act(() => {
      vi.advanceTimersByTime(60_000);
    });
    expect(time.textContent).toBe('2 minutes ago');
    act(() => {
      vi.advanceTimersByTime(43 * 60_000);
    });
    expect(time.textContent).toBe('an hour ago');
    act(() => {
      vi.advanceTimersByTime(21 * 3_600_000);
    });
    expect(time.textContent).toBe('a day ago');
  });
});

describe('the scroll-to-top icon', () => {
  afterEach(() => vi.restoreAllMocks());
  const scrollTo = (y: number) => {
    Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
    fireEvent.scroll(window);
  };

  it('shows after 200 px, hides back at the top, and takes the page and the focus to the start', () => {
    const main = document.createElement('main');
    main.id = 'main';
    main.tabIndex = -1;
    document.body.append(main);
    const scroll = vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
    scrollTo(0);
    render(<ScrollTopButton />);
    expect(screen.queryByRole('button', { name: APP_MESSAGES.scrollToTop })).toBeNull();
    scrollTo(SCROLL_TO_TOP_AFTER_PX);
    expect(screen.queryByRole('button', { name: APP_MESSAGES.scrollToTop })).toBeNull();
    scrollTo(SCROLL_TO_TOP_AFTER_PX + 1);
    fireEvent.click(screen.getByRole('button', { name: APP_MESSAGES.scrollToTop }));
    expect(scroll).toHaveBeenCalledWith(expect.objectContaining({ top: 0 }));
    expect(document.activeElement).toBe(main);
    scrollTo(0);
    expect(screen.queryByRole('button', { name: APP_MESSAGES.scrollToTop })).toBeNull();
    main.remove();
  });
});

describe("the expired or cancelled reader's prompt (§6)", () => {
  const as = (status: AccountProfile['subscription_status']): AccountProfile => ({ ...profile, subscription_status: status, account: { ...profile.account, type: status } });

  it('tells an expired reader to subscribe or reactivate, linking to /subscribe/', () => {
    withSession(<SubscriptionPrompt place="queue" />, as('expired'));
    const region = screen.getByRole('region', { name: ACCOUNT_ENTRY_MESSAGES.subscriptionPromptLabel });
    expect(region.textContent).toContain(ACCOUNT_ENTRY_MESSAGES.expiredPrompt);
    expect(screen.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.subscribe }).getAttribute('href')).toBe('/subscribe/');
  });

  it('tells a cancelled reader to reactivate', () => {
    withSession(<SubscriptionPrompt place="home" />, as('cancelled'));
    expect(screen.getByText(ACCOUNT_ENTRY_MESSAGES.cancelledPrompt)).toBeTruthy();
    expect(screen.getByRole('link', { name: ACCOUNT_ENTRY_MESSAGES.reactivate }).getAttribute('href')).toBe('/subscribe/');
  });

  it.each(['subscriber', 'trial'] as const)('says nothing to a %s', (status) => {
    withSession(<SubscriptionPrompt place="queue" />, as(status));
    expect(screen.queryByRole('region')).toBeNull();
  });

  it('says nothing to a visitor', () => {
    withSession(<SubscriptionPrompt place="home" />, null);
    expect(screen.queryByRole('region')).toBeNull();
  });
});
