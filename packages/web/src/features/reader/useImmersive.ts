/**
 * The immersive view (as Apple Books, Kindle and Kavita do it): every bar hidden, the site header too, the chapter on
 * the whole screen. A tap in the middle of the page or the H key toggles it; Escape leaves it. Not stored: a new
 * visit starts with the bars (the masthead and menu toggles in the settings are the lasting choice).
 */
import { useCallback, useEffect, useState } from 'react';
import { setShellChromeCovered } from '../../shared/shellChrome.ts';

export function useImmersive() {
  const [immersive, setImmersive] = useState(false);
  const toggleImmersive = useCallback(() => setImmersive((v) => !v), []);
  const leaveImmersive = useCallback(() => setImmersive(false), []);
  // The site header under the immersive view leaves the tab order with it.
  useEffect(() => {
    setShellChromeCovered(immersive);
    return () => setShellChromeCovered(false);
  }, [immersive]);
  return { immersive, toggleImmersive, leaveImmersive };
}
