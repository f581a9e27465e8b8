// Mutation testing of the address rules for webhooks and client metadata documents (SSRF, DNS rebinding).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  mutate: ['src/http/outbound-address.ts'],
  testFiles: ['test/webhooks-ssrf.test.ts', 'test/oauth-mcp-clients.test.ts'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/outbound-address.json' },
  tempDirName: '.stryker-tmp/outbound-address',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 90, break: 90 },
};
