import { defineConfig } from 'vitest/config';

// The fault-injection suite (`npm run test:faults`): slower, real daemon and hook processes.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
