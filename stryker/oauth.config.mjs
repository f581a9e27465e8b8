// Mutation testing of the OAuth server's checks: client authentication, code exchange with PKCE,
// refresh rotation, access-token verification, registered redirect URIs, scopes, parameters.
// Run: npx stryker run stryker/oauth.config.mjs (Node 22 or later).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    'src/auth/oauth/token.ts',
    'src/auth/oauth/client-auth.ts',
    'src/auth/oauth/access.ts',
    'src/auth/oauth/tokens.ts',
    'src/auth/oauth/redirect-uri.ts',
    'src/auth/oauth/scopes.ts',
    'src/auth/oauth/params.ts',
  ],
  testRunner: 'vitest',
  vitest: { configFile: 'stryker/vitest.oauth.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  reporters: ['clear-text', 'json'],
  jsonReporter: { fileName: 'reports/mutation/oauth/mutation.json' },
  tempDirName: '.stryker-tmp/oauth',
  cleanTempDir: 'always',
  // Other groups' sandboxes and reports are no part of this group's copy of the project.
  ignorePatterns: ['/.stryker-tmp', '/reports'],
};
