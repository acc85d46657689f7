import { useState, type ReactNode } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import { BrowserRouter, StaticRouter } from 'react-router';
import { HydrationRoot } from './hydration.tsx';
import { AppRoutes, preloadReader } from './router.tsx';
import { createQueryClient, Providers } from './providers.tsx';
import { startSession } from '../shared/useSession.ts';
import { startReaderFromPage } from '../features/reader/engine/readerFromPage.ts';

/** The app's query client, started with the page's data (the profile, a reader address's chapter). */
export function startApp(): QueryClient {
  const client = createQueryClient();
  const boot = startSession(client);
  // A reader address whose page already asked for its chapter: the chapter is decrypted while the app starts, and
  // the reader's code is asked for now rather than once the first render reaches the route.
  if (boot?.reader) {
    startReaderFromPage(boot);
    preloadReader();
  }
  return client;
}

/**
 * `client`: one already started (startApp), as for a first screen prepared before it is hydrated
 * (app/firstScreen.ts); `location`: the address the server renders (ssr.tsx), where there is no browser history.
 */
export function App({ client, location }: { client?: QueryClient; location?: string } = {}) {
  const [queryClient] = useState(() => client ?? startApp());
  const routes: ReactNode = <AppRoutes />;
  return (
    <HydrationRoot>
      <Providers client={queryClient}>
        {location === undefined ? <BrowserRouter>{routes}</BrowserRouter> : <StaticRouter location={location}>{routes}</StaticRouter>}
      </Providers>
    </HydrationRoot>
  );
}
