import { notifyManager, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { isApiError } from '../api/client.ts';
import { reportError, type ErrorLevel } from '../shared/errorState.ts';
import { forgetCarriedEmailOnSessionChange } from '../features/account/carriedEmail.ts';

/**
 * A query that declares `meta: { errorLevel, errorMessage }` has its failures reported to the global error
 * bar once per failed fetch (after retries). A 401 is not reported: it means the session has gone, and the
 * screens that need one send the visitor to sign in instead.
 */
function reportQueryError(error: unknown, meta: Record<string, unknown> | undefined) {
  const message = meta?.errorMessage;
  if (typeof message !== 'string') return;
  if (isApiError(error) && error.status === 401) return;
  reportError((meta?.errorLevel as ErrorLevel | undefined) ?? 'WARN', message, error);
}

/**
 * Query results reach the components in a microtask after they settle, not in a timer task: a timer waits behind
 * whatever rendering the browser has queued (a whole frame, on a chapter change), and the reader's next chapter
 * would wait with it. Notifications are still batched within the task that settled them.
 */
notifyManager.setScheduler(queueMicrotask);

export function createQueryClient() {
  const client = new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => reportQueryError(error, query.meta) }),
    defaultOptions: {
      queries: {
        // Client errors (401, 403, 404) will not change on retry; server and network errors get retried.
        // library-playlists-account.md §9 "Retry helper": 2 retries, 1000 ms apart.
        retry: (failures, error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
        retryDelay: 1000,
        refetchOnWindowFocus: false,
      },
    },
  });
  forgetCarriedEmailOnSessionChange(client);
  return client;
}

export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
