/**
 * The address a visitor types on the sign-in page goes with them to the "forgot password" page, and back (docs/decisions.md
 * "Joining"). The other page's code loads on demand: on a slow phone the sign-in page stays on screen for a moment
 * after the link is pressed, and what was typed there meanwhile was lost, the new form empty ("This field is
 * required."). Kept in memory only: never in the address bar or the browser's storage, gone when the tab reloads, the
 * visitor signs in or out, or a reset link has been sent to it (the next person at a shared computer must not find it).
 */
import { useLayoutEffect, useRef, type ChangeEvent } from 'react';

let carried = '';

/** Forgets the address (a sign-in, a sign-out, a reset link sent). */
export function forgetCarriedEmail(): void {
  carried = '';
}

/**
 * Props for the page's email field (an uncontrolled input): each change is kept, and an empty field takes the kept
 * address when the page commits, which is after the page it replaces is gone, so what was typed until then is in it.
 */
export function useCarriedEmail() {
  const ref = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    const input = ref.current;
    if (input && !input.value && carried) input.value = carried;
  }, []);
  return {
    ref,
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      carried = event.currentTarget.value;
    },
  };
}
