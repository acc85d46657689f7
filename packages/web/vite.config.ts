import { fileURLToPath } from 'node:url';
import type { IncomingMessage } from 'node:http';
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const target = process.env.LECTERN_API ?? 'http://127.0.0.1:8080';

/** API calls go to the server; everything else (including GET /login/) is the single-page app. */
const api: ProxyOptions = { target, changeOrigin: false };

/** /login/ and /logout/: the server takes the posts, the SPA answers the page loads. */
const postsOnly: ProxyOptions = {
  target,
  changeOrigin: false,
  bypass: (req: IncomingMessage) => (req.method === 'GET' || req.method === 'HEAD' ? '/index.html' : undefined),
};

export default defineConfig({
  root,
  plugins: [react()],
  // The chapter worker is a module worker that loads the client's schemas on demand, as the app does.
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    rolldownOptions: {
      treeshake: {
        // The core package is pure (DESIGN.md: no Node or DOM imports, no side effects): a chunk that uses only
        // its formatting rules and paths must not pull in its zod schemas, which the client loads on demand.
        moduleSideEffects: [{ test: /[\\/]packages[\\/]core[\\/]src[\\/]/, sideEffects: false }],
      },
    },
  },
  server: {
    proxy: {
      '^/api/': api,
      '^/u(/|$)': api,
      '^/nest/': api,
      '^/healthz': api,
      '^/login/?$': postsOnly,
      '^/logout/?$': postsOnly,
    },
  },
  preview: {
    proxy: {
      '^/api/': api,
      '^/u(/|$)': api,
      '^/nest/': api,
      '^/healthz': api,
      '^/login/?$': postsOnly,
      '^/logout/?$': postsOnly,
    },
  },
});
