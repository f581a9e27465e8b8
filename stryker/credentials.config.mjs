// Mutation testing of the credential strategies: sessions, passwords, presented tokens and the
// organization they act in, the PAT cache.
// Run: npx stryker run stryker/credentials.config.mjs (Node 22 or later).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/auth/session.ts', 'src/auth/authenticate.ts', 'src/auth/password.ts', 'src/auth/pat-cache.ts'],
  testRunner: 'vitest',
  vitest: { configFile: 'stryker/vitest.credentials.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  reporters: ['clear-text', 'json'],
  jsonReporter: { fileName: 'reports/mutation/credentials/mutation.json' },
  tempDirName: '.stryker-tmp/credentials',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are no part of this group's copy of the project.
  ignorePatterns: ['/.stryker-tmp', '/reports'],
};
