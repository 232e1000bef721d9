import { defineConfig } from 'vitest/config';

// npm run test:fuzz: the generated bad-input suite (slow; the default suite replays only its regressions).
export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.fuzz.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
  },
});
