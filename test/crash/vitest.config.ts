import { defineConfig } from 'vitest/config';

// npm run test:crash: a real `satgate start` killed with SIGKILL at random moments under a workload (slow).
export default defineConfig({
  test: {
    include: ['test/crash/**/*.crash.ts'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});
