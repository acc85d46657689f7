/**
 * The scroll-to-top icon (library-playlists-account.md §2, §6): for signed-in readers, once the page has scrolled
 * past 200 px (§9). It takes the page back to its start and the focus to the main landmark, so a keyboard goes on
 * from the top too. It fades in and out over §9's short transition (none with reduced motion).
 */
import { APP_MESSAGES, SCROLL_TO_TOP_AFTER_PX } from '@lectern/core';
import { useEffect, useState } from 'react';
import { Icon } from '../components/Icon.tsx';
import './ScrollTopButton.css';

const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Back to the page's start, the focus on the main landmark (without a second jump). */
export function scrollToTop(): void {
  window.scrollTo({ top: 0, behavior: reducedMotion() ? 'auto' : 'smooth' });
  document.getElementById('main')?.focus({ preventScroll: true });
}

export function ScrollTopButton() {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const check = () => setShown(window.scrollY > SCROLL_TO_TOP_AFTER_PX);
    check();
    window.addEventListener('scroll', check, { passive: true });
    return () => window.removeEventListener('scroll', check);
  }, []);
  return (
    <button
      type="button"
      className={`scroll-top${shown ? ' scroll-top--shown' : ''}`}
      aria-label={APP_MESSAGES.scrollToTop}
      title={APP_MESSAGES.scrollToTop}
      // out of sight, out of the tab order and the accessibility tree
      hidden={!shown}
      onClick={scrollToTop}
    >
      <Icon name="arrow-up" size={20} />
    </button>
  );
}
