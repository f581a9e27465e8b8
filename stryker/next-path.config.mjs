// Mutation testing of where sign-in sends the browser (`next`): run with `npm run test:mutation -- next-path`.
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
  mutate: ['src/web/next-path.ts'],
  testFiles: ['test/next-path.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/next-path.json' },
  tempDirName: '.stryker-tmp/next-path',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are not part of the project.
  ignorePatterns: ['.stryker-tmp', 'reports'],
  thresholds: { high: 90, low: 90, break: 90 },
};
