/**
 * The immersive view (as Apple Books, Kindle and Kavita do it): every bar hidden, the site header too, the chapter on
 * the whole screen. A tap in the middle of the page or the H key toggles it; Escape leaves it. Not stored: a new
 * visit starts with the bars (the masthead and menu toggles in the settings are the lasting choice).
 */
import { useCallback, useState } from 'react';

export function useImmersive() {
  const [immersive, setImmersive] = useState(false);
  const toggleImmersive = useCallback(() => setImmersive((v) => !v), []);
  const leaveImmersive = useCallback(() => setImmersive(false), []);
  return { immersive, toggleImmersive, leaveImmersive };
}
