import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The browser suite: real Chromium through playwright-core, run by test/browser/run.sh (npm run test:browser).
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
