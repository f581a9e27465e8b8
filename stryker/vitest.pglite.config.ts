import { defineConfig } from 'vitest/config';

/**
 * The pglite project of ../vitest.config.ts, for the mutation groups whose Stryker
 * configuration names its test files (`testFiles`). A test file that starts an app starts it
 * again for every mutant, on a machine Stryker keeps busy: hooks get five minutes.
 */
export default defineConfig({
  root: new URL('..', import.meta.url).pathname,
  // As in ../vitest.config.ts: our code must load graphql's CJS build, like our dependencies.
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', '**/node_modules/**'],
    env: { NODE_ENV: 'test', TEST_DB: 'pglite' },
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
