// Generates the typed operations of the client (src/generated: types, the `Operations` class, the
// fetch client they run on) from the service's OpenAPI document with @hey-api/openapi-ts. Run by
// the repository's `npm install` (its postinstall), by `npm run build` here, and by the contract
// check, which generates the client of two versions of the document to compare their types.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const DOCUMENT = here('../../../openapi.json');
const OUTPUT = here('../src/generated');
const GENERATOR = createRequire(import.meta.url)('@hey-api/openapi-ts/package.json').version;

const PLUGINS = [
  // Failures throw (the problem, as the client's ApiProblem): a call's result is its data.
  { name: '@hey-api/client-fetch', throwOnError: true },
  '@hey-api/typescript',
  // One class of methods (`listIssues`, `createIssue`, ...) a client instance extends.
  { name: '@hey-api/sdk', operations: { strategy: 'single', containerName: 'Operations' } },
];

/**
 * Writes the generated client for the OpenAPI document at `input` into the folder `output`;
 * `typesOnly`: the types (types.gen.ts) alone, all the contract check compares. An output already
 * generated from the same document, generator and plugins is left as it is, so a build (`npm
 * pack`) never rewrites files that running tests are reading.
 */
export async function generate(input = DOCUMENT, output = OUTPUT, { typesOnly = false } = {}) {
  const plugins = typesOnly ? ['@hey-api/typescript'] : PLUGINS;
  const stamp = createHash('sha256')
    .update(JSON.stringify([GENERATOR, plugins]))
    .update(readFileSync(input))
    .digest('hex');
  const stampFile = join(output, '.source-sha256');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  await createClient({ input, output: { path: output, clean: true }, plugins, logs: { level: 'silent' } });
  writeFileSync(stampFile, stamp);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await generate(process.argv[2], process.argv[3]);
