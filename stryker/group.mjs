// The one shape of a mutation-testing group: stryker/<name>.config.mjs names its modules and the
// test files that exercise them (npm run test:mutation; README "Mutation testing").

/**
 * @param {string} name the group, as in stryker/<name>.config.mjs
 * @param {{ mutate: string[], testFiles: string[] }} group
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function mutationGroup(name, { mutate, testFiles }) {
  return {
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    vitest: { configFile: 'stryker/vitest.pglite.config.ts', related: false },
    coverageAnalysis: 'perTest',
    // Module-level values (static mutants) are evaluated once per test process, and the vitest
    // runner keeps modules loaded between mutants: such a mutant would never be active.
    ignoreStatic: true,
    concurrency: 1,
    mutate,
    testFiles,
    reporters: ['clear-text', 'progress', 'json'],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    tempDirName: `.stryker-tmp/${name}`,
    cleanTempDir: 'always',
    // Other groups' sandboxes and reports are not part of the project.
    ignorePatterns: ['/.stryker-tmp', '/reports'],
    thresholds: { high: 90, low: 90, break: 90 },
  };
}
