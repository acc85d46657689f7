/**
 * Who is signed in. The readable `logged_in` cookie says whether a session may exist; only then is the profile
 * asked for (anonymous visitors cost no request). A 401 means the session has gone: treat as anonymous.
 */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import type { AccountProfile, LoginRequest } from '@lectern/core';
import { api, isApiError } from '../api/client.ts';
import { type BootData, takeBootData } from '../api/boot.ts';
import { hasLoginCookie } from '../api/cookies.ts';
import { queryKeys } from '../api/queryKeys.ts';
import { appPaths } from './links.ts';
import { seedServerPosition } from './reading/serverPositionSeed.ts';

/** The page the reader signed out on (forgotten at the next sign-in, which drops every query but the profile). */
const SIGNED_OUT_ON = ['signed-out-on'] as const;

export interface Session {
  profile: AccountProfile | null;
  /** True while the profile of a probably-signed-in user is being fetched for the first time. */
  isLoading: boolean;
  /** The profile could not be fetched (server or network error, not a 401): whether a session exists is unknown. */
  failed: boolean;
  retry: () => void;
}

/** The profile query, as useSession reads it and startSession starts it. */
const profileQuery = {
  queryKey: queryKeys.profile,
  queryFn: async ({ signal }: { signal?: AbortSignal }): Promise<AccountProfile | null> => {
    try {
      return await api.getProfile(signal);
    } catch (e) {
      if (isApiError(e) && e.status === 401) return null;
      throw e;
    }
  },
  staleTime: 5 * 60_000,
  retry: 1,
};

/**
 * The profile as the app starts. The page brings it when the request carried a session (api/boot.ts): taken as
 * it is, and checked against its schema later, off the first paint's path (a profile that does not conform is
 * asked for again, and that answer is checked as every answer is). Otherwise asked for when the `logged_in` cookie
 * says a session may exist: before the first render, not in the effects after it, so what waits for the profile
 * (the home's greeting and rows, the playlist menus) starts one render sooner. useSession then finds it under way;
 * a failure is retried when it mounts.
 */
export function startSession(client: QueryClient): BootData | null {
  const boot = takeBootData();
  if (boot) {
    client.setQueryData(queryKeys.profile, boot.profile);
    // A reader address: the title's format, which the router asks before it picks the reader or the player, and
    // the account's position of the book, which the reader waits for before it places the chapter.
    const reader = boot.reader;
    if (reader && typeof reader.book_id === 'string' && typeof reader.format === 'string') {
      client.setQueryData(queryKeys.titleFormat(reader.book_id), reader.format);
      if (boot.profile) seedServerPosition(client, reader.book_id, boot.profile.user_uuid, reader.position);
    }
    if (boot.profile) {
      void api.conforms(boot.profile, (s) => s.accountProfileSchema).then(
        (ok) => {
          if (!ok && client.getQueryData(queryKeys.profile) === boot.profile) void client.invalidateQueries({ queryKey: queryKeys.profile });
        },
        () => undefined, // the schemas did not load: the next request reports it
      );
    }
    return boot;
  }
  if (hasLoginCookie()) void client.prefetchQuery(profileQuery);
  return null;
}

export function useSession(): Session {
  const mayBeSignedIn = hasLoginCookie();
  const query = useQuery({ ...profileQuery, enabled: mayBeSignedIn });
  return {
    profile: mayBeSignedIn ? (query.data ?? null) : null,
    isLoading: mayBeSignedIn && query.isPending,
    failed: mayBeSignedIn && query.isError && query.data === undefined,
    retry: () => void query.refetch(),
  };
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (credentials: LoginRequest) => api.login(credentials),
    onSuccess: (profile) => {
      api.clearCollectionsCache();
      // What a visitor may read changes with the session: drop cached books and chapters.
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'profile' });
      queryClient.setQueryData(queryKeys.profile, profile);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  return useMutation({
    mutationFn: () => api.logout(),
    onSuccess: () => {
      // The stored playlist list and its ETag belong to this user.
      api.clearCollectionsCache();
      queryClient.setQueryData(queryKeys.profile, null);
      // Drop what the session could see. Queries still on screen (the chapter being read) are only marked
      // stale, not refetched: the caller navigates away, and an anonymous refetch would just earn a 401.
      const notProfile = (q: { queryKey: readonly unknown[] }) => q.queryKey[0] !== 'profile';
      queryClient.removeQueries({ predicate: notProfile, type: 'inactive' });
      void queryClient.invalidateQueries({ predicate: notProfile, refetchType: 'none' });
      queryClient.setQueryData(SIGNED_OUT_ON, pathname);
    },
  });
}

/**
 * Where a private page (the account page, subscribe) sends someone without a session: to sign in and come back to
 * it — unless the reader has just signed out on this very page. Then it is the library, where the account menu
 * takes them too: the sign-in form, with this page as `next`, would otherwise win the race and keep them there.
 * `redirecting`: the page is sending them away now (the note of the sign-out is then used up).
 */
export function useSignInPath(redirecting: boolean): string {
  const queryClient = useQueryClient();
  const location = useLocation();
  const signedOutHere = redirecting && queryClient.getQueryData<string>(SIGNED_OUT_ON) === location.pathname;
  useEffect(() => {
    if (signedOutHere) queryClient.removeQueries({ queryKey: SIGNED_OUT_ON, exact: true });
  }, [signedOutHere, queryClient]);
  return signedOutHere ? appPaths.library : appPaths.login(location.pathname + location.search);
}
