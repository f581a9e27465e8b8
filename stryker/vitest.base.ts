import { defineConfig } from 'vitest/config';

/**
 * The vitest config of one mutation-testing group: only the test files that exercise its
 * modules, on the embedded database (the pglite project of ../vitest.config.ts), so each
 * mutant is judged by the tests about it in seconds, not by the whole suite.
 */
export function groupConfig(include: string[]) {
  return defineConfig({
    root: new URL('..', import.meta.url).pathname,
    // As in ../vitest.config.ts: our code must load graphql's CJS build, like our dependencies.
    resolve: { alias: { graphql: 'graphql/index.js' } },
    test: {
      include,
      env: { NODE_ENV: 'test', TEST_DB: 'pglite' },
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}
