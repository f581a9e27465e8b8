// Mutation testing of the request guards: body limits, CSRF and the same-origin check.
// Run: npx stryker run stryker/http-guards.config.mjs (Node 22 or later).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/http/body-limit.ts', 'src/pipeline/csrf.ts', 'src/http/same-origin.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'stryker/vitest.http-guards.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  reporters: ['clear-text', 'json'],
  jsonReporter: { fileName: 'reports/mutation/http-guards/mutation.json' },
  tempDirName: '.stryker-tmp/http-guards',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are no part of this group's copy of the project.
  ignorePatterns: ['/.stryker-tmp', '/reports'],
};
