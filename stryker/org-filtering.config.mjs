// Mutation testing of the rules of who may call an operation and the organization it filters by.
// Run: npx stryker run stryker/org-filtering.config.mjs (Node 22 or later).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/schema/access.ts', 'src/schema/viewer.ts', 'src/auth/principal.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'stryker/vitest.org-filtering.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  reporters: ['clear-text', 'json'],
  jsonReporter: { fileName: 'reports/mutation/org-filtering/mutation.json' },
  tempDirName: '.stryker-tmp/org-filtering',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are no part of this group's copy of the project.
  ignorePatterns: ['/.stryker-tmp', '/reports'],
};
