// Generates the typed operations of the client (src/generated: types, the `Operations` class, the
// fetch client they run on) from the service's OpenAPI document with @hey-api/openapi-ts. Run by
// the repository's `npm install` (its postinstall), by `npm run build` here, and by the contract
// check, which generates the client of two versions of the document to compare their types.
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export const DOCUMENT = here('../../../openapi.json');
export const OUTPUT = here('../src/generated');

const PLUGINS = [
  // Failures throw (the problem, as the client's ApiProblem): a call's result is its data.
  { name: '@hey-api/client-fetch', throwOnError: true },
  '@hey-api/typescript',
  // One class of methods (`listIssues`, `createIssue`, ...) a client instance extends.
  { name: '@hey-api/sdk', operations: { strategy: 'single', containerName: 'Operations' } },
];

/**
 * Writes the generated client for the OpenAPI document at `input` into the folder `output`;
 * `typesOnly`: the types (types.gen.ts) alone, all the contract check compares.
 */
export async function generate(input = DOCUMENT, output = OUTPUT, { typesOnly = false } = {}) {
  await createClient({
    input,
    output: { path: output, clean: true },
    plugins: typesOnly ? ['@hey-api/typescript'] : PLUGINS,
    logs: { level: 'silent' },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await generate(process.argv[2], process.argv[3]);
