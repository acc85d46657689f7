import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { AppRoutes } from './router.tsx';
import { createQueryClient, Providers } from './providers.tsx';
import { startSession } from '../shared/useSession.ts';

export function App() {
  const [queryClient] = useState(() => {
    const client = createQueryClient();
    startSession(client);
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
