/**
 * The home's two first queries, the dashboard's sections and the reader's blocks (newsletter, dismissed): one
 * definition for the page and for its first screen rendered on the server and hydrated in the browser (ssr.tsx,
 * app/firstScreen.ts), which must ask for the same keys to find the same answers.
 */
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';

/** `userKey`: the signed-in reader's user_uuid, '' for a visitor (another reader's dashboard is never shown). */
export const homeQueryOf = (userKey: string) => ({
  queryKey: queryKeys.home(userKey),
  queryFn: ({ signal }: { signal?: AbortSignal }) => api.home(signal),
});

export const homeModulesQueryOf = (userKey: string) => ({
  queryKey: queryKeys.homeModules(userKey),
  queryFn: ({ signal }: { signal?: AbortSignal }) => api.homeModules(signal),
});
