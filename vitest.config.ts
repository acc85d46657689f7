import { defineConfig } from 'vitest/config';

/**
 * One runner, four tiers: core (pure rules), server (API and import through the real app on SQLite and
 * PostgreSQL), web (components in jsdom), e2e (the built app in Debian's Chromium).
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'core', include: ['packages/core/test/**/*.test.ts'] } },
      {
        test: {
          name: 'server',
          include: ['packages/server/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 240_000,
          pool: 'forks',
        },
      },
      'packages/web',
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          globalSetup: ['e2e/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
