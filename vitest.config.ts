import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Every suite runs on the embedded database; with TEST_POSTGRES_URL set (as .ci/run does)
// the same suites run again on PostgreSQL.
const postgres = process.env.TEST_POSTGRES_URL;

export default defineConfig({
  // graphql 16 ships ESM (.mjs) and CJS; Node loads the CJS build for our dependencies, so
  // our own code must get the same one or graphql refuses schemas "from another realm".
  // The client package as its source, as tsconfig.json's paths say.
  resolve: {
    alias: {
      graphql: 'graphql/index.js',
      '@workmgmt/client': fileURLToPath(new URL('./clients/typescript/src/index.ts', import.meta.url)),
    },
  },
  test: {
    env: { NODE_ENV: 'test' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true as const,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/scale/**'],
          env: { TEST_DB: 'pglite' },
        },
      },
      {
        extends: true as const,
        test: { name: 'browser', include: ['test/browser/**/*.test.ts'], env: { TEST_DB: 'pglite' } },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/**/*.test.ts'],
                // The contract check reads files and git only: once, on the embedded run, is enough.
                exclude: [
                  'test/browser/**',
                  'test/pglite/**',
                  'test/limits/**',
                  'test/scale/**',
                  'test/contract-check.test.ts',
                ],
                env: { TEST_DB: 'postgres' },
              },
            },
            // The deploy/ recipe with real processes: HAProxy, PgBouncer, Redis, three instances (deploy/README.md).
            {
              extends: true as const,
              test: { name: 'scale', include: ['test/scale/**/*.test.ts'], env: { TEST_DB: 'postgres' } },
            },
          ]
        : []),
    ],
  },
});
