// Mutation testing of personal access tokens: their format and checksum, and how a request's token is resolved.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  mutate: ['src/auth/pat.ts', 'src/auth/pat-token.ts'],
  testFiles: ['test/pat-auth.test.ts', 'test/pat-cache.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/pat.json' },
  tempDirName: '.stryker-tmp/pat',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 90, break: 90 },
};
