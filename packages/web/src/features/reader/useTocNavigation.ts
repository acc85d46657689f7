/**
 * A chapter chosen in the contents appears with the panel's closing (docs/decisions.md): the click starts the
 * request; the contents stay open until the chapter is in (at most CHAPTER_NAVIGATE_WAIT_MS), then one render closes
 * the panel and shows the chapter, and the address follows through the router (whose navigations are transitions:
 * time-sliced, behind everything else). Until the address has caught up, `ahead` names the chapter shown; any
 * navigation (that one, or the reader going back) ends it. The chosen chapter takes the focus once painted (not the
 * contents button in between: a focus call there would force a style pass over the closing panel).
 */
import { useCallback, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { useLocation, useNavigate } from 'react-router';

/** A chapter chosen in the contents takes the address at the latest this long after the click, loaded or not. */
const CHAPTER_NAVIGATE_WAIT_MS = 250;

export function useTocNavigation(
  routeHref: string,
  startChapterLoad: (href: string) => Promise<void>,
  closeToc: () => void,
  /** Set when a chapter is chosen: the chapter takes the focus once it is on screen. */
  focusChapterOnReady: RefObject<boolean>,
) {
  const location = useLocation();
  const navigate = useNavigate();
  const [ahead, setAhead] = useState<{ fromKey: string; href: string; hash: string } | null>(null);
  const isAhead = ahead !== null && ahead.fromKey === location.key;
  const href = isAhead ? ahead.href : routeHref;
  const hash = isAhead ? ahead.hash : location.hash;
  // The latest address and navigate for the contents' click handler, which stays the same function across chapters
  // (a new one would re-render every row of the contents on each chapter change).
  const latestNav = useRef({ href, navigate, key: location.key });
  latestNav.current = { href, navigate, key: location.key };
  const pendingNav = useRef(0);

  const onTocChapter = useCallback(
    (target: string, url: string) => {
      const { href: current, key } = latestNav.current;
      if (target === current) {
        closeToc();
        void latestNav.current.navigate(url);
        return;
      }
      focusChapterOnReady.current = true;
      // The page is idle while the request is on its way, free to take the answer the moment it comes.
      const token = ++pendingNav.current;
      let timer = 0;
      const go = () => {
        window.clearTimeout(timer);
        // Only the latest choice, and not if the reader has gone elsewhere meanwhile (back, another link).
        if (pendingNav.current !== token || latestNav.current.key !== key) return;
        pendingNav.current += 1;
        flushSync(() => {
          closeToc();
          setAhead({ fromKey: key, href: target, hash: new URL(url, window.location.href).hash });
        });
        void latestNav.current.navigate(url);
      };
      timer = window.setTimeout(go, CHAPTER_NAVIGATE_WAIT_MS);
      void startChapterLoad(target).then(go);
    },
    [startChapterLoad, closeToc, focusChapterOnReady],
  );

  return { href, hash, isAhead, onTocChapter };
}
