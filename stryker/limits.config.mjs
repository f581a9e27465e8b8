// Mutation testing of the rate limiter and its in-process store (also the Redis store's local fallback).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker/vitest.pglite.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // Module-level values (static mutants) are evaluated once per test process, and the vitest
  // runner keeps modules loaded between mutants: such a mutant would never be active.
  ignoreStatic: true,
  concurrency: 1,
  mutate: ['src/limits/memory-store.ts', 'src/limits/limiter.ts'],
  testFiles: ['test/limits/memory-store.test.ts', 'test/limits/redis-store.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/limits.json' },
  tempDirName: '.stryker-tmp/limits',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are not part of the project.
  ignorePatterns: ['.stryker-tmp', 'reports'],
  thresholds: { high: 90, low: 90, break: 90 },
};
