// Mutation testing of personal access tokens: their format and checksum, and how a request's token is resolved.
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
  mutate: ['src/auth/pat.ts', 'src/auth/pat-token.ts'],
  testFiles: ['test/pat-token.test.ts', 'test/pat-lookup.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/pat.json' },
  tempDirName: '.stryker-tmp/pat',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are not part of the project.
  ignorePatterns: ['.stryker-tmp', 'reports'],
  thresholds: { high: 90, low: 90, break: 90 },
};
