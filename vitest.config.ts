import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/browser/**'],
    // Child processes started through bin/satgate.js run the TypeScript sources, never a possibly stale dist/.
    env: { SATGATE_RUN_SOURCE: '1' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
