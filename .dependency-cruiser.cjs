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
      severity: 'error',
      comment:
        'Data access, events, webhooks, limits, credentials, HTTP policies and views sit below the surfaces ' +
        'and serve all of them: they never import one (nor the fetch handler). What two surfaces share lives ' +
        'in a layer below both (representations and page layout in the views layer).',
      from: { path: '^src/(db|events|webhooks|limits|auth|http|idempotency|live|mail|views|ops|redis)/' },
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
      severity: 'error',
      comment:
        'A surface does not import another: what both need (representations, links, page layout, problems) ' +
        'lives below them, in the schema, the views layer or src/http.',
      // src/web/rest-route.ts builds on the REST declarations by design: the next rule bounds it.
      from: { path: '^src/(rest|graphql|web|cli)/', pathNot: '^src/web/rest-route\\.ts$' },
      to: { path: SURFACES, pathNot: '^src/$1/' },
    },
    {
      // By design a page that shows what a REST GET answers (the issue list) runs that route's
      // declaration, so its URL takes the API's query parameters with the API's checks and messages.
      name: 'pages-only-to-rest-declarations',
      severity: 'error',
      comment:
        'Only src/web/rest-route.ts reads REST, and only its route declarations (the route type, the route ' +
        'list, the query reader); the other pages import no surface.',
      from: { path: '^src/web/rest-route\\.ts$' },
      to: { path: SURFACES, pathNot: '^src/(web/|rest/(route|inputs|routes/index)\\.ts$)' },
    },
    {
      // By design MCP tools are generated from the REST route declarations (src/mcp/tools.ts): the
      // same operations, inputs and OpenAPI schemas, run through the REST router's runRoute.
      name: 'mcp-only-to-rest-declarations',
      severity: 'error',
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
      name: 'client-package-standalone',
      severity: 'error',
      comment:
        'The client package (clients/typescript) is published on its own: it talks to the service over HTTP ' +
        'and imports none of its modules.',
      from: { path: '^clients/' },
      to: { path: '^src/' },
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
    exclude: { path: ['^src/generated/', '^clients/typescript/src/generated/', '^src/.+\\.js$'] },
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
