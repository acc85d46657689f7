import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['test/setup.ts'],
    // In CI a failed component test runs once more, as the server and browser tests do (the root vitest.config.ts):
    // under CI's load a request one test left settling has read what the next test wrote. It is named then
    // (.ci/run, "passed on its second try"), to be fixed.
    retry: process.env.CI ? 1 : 0,
  },
});
