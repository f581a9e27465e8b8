// Mutation testing of the address rules for webhooks and client metadata documents (SSRF, DNS rebinding).
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
  mutate: ['src/http/outbound-address.ts'],
  testFiles: ['test/outbound-address.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/outbound-address.json' },
  tempDirName: '.stryker-tmp/outbound-address',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are not part of the project.
  ignorePatterns: ['.stryker-tmp', 'reports'],
  thresholds: { high: 90, low: 90, break: 90 },
};
