// The layer rules of docs/development.md (Layout), checked by `npm run deps:check` in .ci/run.
// A rule names the layers it keeps apart; `comment` is what a violation prints.

/** The surfaces: each turns requests of one protocol into calls of the schema's operations. */
const SURFACES = '^src/(rest|graphql|mcp|web|cli)/';
/** What runs the surfaces: the fetch handler, its steps and the node entry. */
const SHELL = '^src/(pipeline/|app\\.ts$|server\\.ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module cycle: the modules cannot be read, tested or loaded one without the other. Break it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'Nothing imports this module and it imports nothing: remove it, or use it.',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '^src/generated/'] },
      to: {},
    },
    {
      name: 'schema-not-to-surface',
      severity: 'error',
      comment:
        'The schema holds the rules every surface calls; it never imports a surface (REST, the GraphQL ' +
        'server, MCP, pages, CLI) nor what runs them. Its Pothos builder is the schema itself, not a surface.',
      from: { path: '^src/schema/' },
      to: { path: [SURFACES, SHELL] },
    },
    {
      name: 'below-surfaces-not-to-surface',
      severity: 'warn',
      comment:
        'Data access, events, webhooks, limits, credentials, HTTP policies and views sit below the surfaces ' +
        'and serve all of them: they never import one (nor the fetch handler). What two surfaces share lives ' +
        'in a layer below both (representations and page layout in the views layer).',
      from: { path: '^src/(db|events|webhooks|limits|auth|http|idempotency|live|mail|views|ops)/' },
      to: { path: [SURFACES, SHELL] },
    },
    {
      name: 'limits-not-to-credentials',
      severity: 'error',
      comment: 'Rate limits count keys they are given; they know nothing of credentials (src/auth).',
      from: { path: '^src/limits/' },
      to: { path: '^src/auth/' },
    },
    {
      name: 'oauth-not-to-pages',
      severity: 'error',
      comment: 'The OAuth server renders through the views layer, never through the pages (src/web).',
      from: { path: '^src/auth/oauth/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'pages-not-to-oauth',
      severity: 'error',
      comment: 'Pages call the schema and share the views layer with the OAuth server; they never import it.',
      from: { path: '^src/web/' },
      to: { path: '^src/auth/oauth/' },
    },
    {
      name: 'surfaces-not-to-each-other',
      severity: 'warn',
      comment:
        'A surface does not import another: what both need (representations, links, page layout) lives below ' +
        'them, in the schema or the views layer.',
      from: { path: '^src/(rest|graphql|web|cli)/' },
      to: { path: SURFACES, pathNot: '^src/$1/' },
    },
    {
      name: 'mcp-only-to-rest-declarations',
      severity: 'warn',
      comment: 'MCP tools are made from the REST route declarations; MCP imports no other surface.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/(graphql|web|cli)/' },
    },
    {
      name: 'src-not-to-dev-dependencies',
      severity: 'error',
      comment: 'The service runs without devDependencies (npm ci --omit=dev): src imports none at run time.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import resolves to no file or package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: 'This package is imported but not in package.json: it works only by luck of the install.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Generated code is not ours to shape; the .js files under src are browser scripts served as files.
    exclude: { path: ['^src/generated/', '^src/.+\\.js$'] },
    // Type-only imports count: a type imported across a layer couples the layers as much as a value.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
