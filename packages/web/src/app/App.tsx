import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { AppRoutes } from './router.tsx';
import { createQueryClient, Providers } from './providers.tsx';

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <Providers client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </Providers>
  );
}
