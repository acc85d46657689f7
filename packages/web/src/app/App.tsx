import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { createRouter } from './router.tsx';
import { createQueryClient, Providers } from './providers.tsx';

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(createRouter);
  return (
    <Providers client={queryClient}>
      <RouterProvider router={router} />
    </Providers>
  );
}
