import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { AppRoutes, preloadReader } from './router.tsx';
import { createQueryClient, Providers } from './providers.tsx';
import { startSession } from '../shared/useSession.ts';
import { startReaderFromPage } from '../features/reader/engine/readerFromPage.ts';

export function App() {
  const [queryClient] = useState(() => {
    const client = createQueryClient();
    const boot = startSession(client);
    // A reader address whose page already asked for its chapter: the chapter is decrypted while the app starts, and
    // the reader's code is asked for now rather than once the first render reaches the route.
    if (boot?.reader) {
      startReaderFromPage(boot);
      preloadReader();
    }
    return client;
  });
  return (
    <Providers client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </Providers>
  );
}
