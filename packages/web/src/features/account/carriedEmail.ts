/**
 * The address a visitor types on the sign-in page goes with them to the "forgot password" page, and back (docs/decisions.md
 * "Joining"). The other page's code loads on demand: on a slow phone the sign-in page stays on screen for a moment
 * after the link is pressed, and what was typed there meanwhile was lost, the new form empty ("This field is
 * required."). Kept in memory only: never in the address bar or the browser's storage, gone when the tab reloads, the
 * visitor signs in or out, or a reset link has been sent to it (the next person at a shared computer must not find it).
 */
import type { AccountProfile } from '@lectern/core';
import type { QueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useRef, type ChangeEvent } from 'react';
import { queryKeys } from '../../api/queryKeys.ts';

let carried = '';

/** Forgets the address (a sign-in, a sign-out, a reset link sent). */
export function forgetCarriedEmail(): void {
  carried = '';
}

/**
 * Forgets the address whenever the session changes hands, however it did: the profile in `client`'s cache going to
 * another account or to none. A sign-in by registering or by joining a team, or a sign-out from the account page,
 * left it for the next person at the computer; each such form need not remember to forget it. Returns the
 * unsubscribe.
 */
export function forgetCarriedEmailOnSessionChange(client: QueryClient): () => void {
  let user: number | null = null;
  return client.getQueryCache().subscribe((event) => {
    if (event.type !== 'updated' || event.query.queryKey[0] !== queryKeys.profile[0]) return;
    const profile = event.query.state.data as AccountProfile | null | undefined;
    if (profile === undefined) return;
    const now = profile ? profile.user_id : null;
    if (now !== user) forgetCarriedEmail();
    user = now;
  });
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
