// Generates the Prisma client, the Pothos types and the client package's operations from openapi.json
// (run by `npm install` through postinstall).
//
// Every Prisma CLI command first tries to download the native schema engine, which machines
// without internet access cannot do. `prisma generate` never uses that engine, so where it is
// missing we point PRISMA_SCHEMA_ENGINE_BINARY at an existing file (this script) to skip the
// download. Where the engine is installed, nothing is overridden.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const enginesDir = dirname(require.resolve('@prisma/engines/package.json'));
const hasNativeEngine = existsSync(enginesDir) && readdirSync(enginesDir).some((f) => f.startsWith('schema-engine'));

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const env = {
  ...process.env,
  // The Pothos generator is found on PATH, as under `npm run`.
  PATH: [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
if (!hasNativeEngine && !env.PRISMA_SCHEMA_ENGINE_BINARY)
  env.PRISMA_SCHEMA_ENGINE_BINARY = fileURLToPath(import.meta.url);

const prisma = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [prisma, 'generate'], { stdio: 'inherit', env });
if (result.status !== 0) process.exit(result.status ?? 1);

// The typed client (clients/typescript, an npm workspace of this repository) from the committed contract.
// Its generator is a development dependency: a production install (`npm ci --omit=dev`) has none,
// and the service does not use the client (only `npm run export` does).
const clientRequire = createRequire(join(root, 'clients', 'typescript', 'package.json'));
const hasClientGenerator = (() => {
  try {
    clientRequire.resolve('@hey-api/openapi-ts/package.json');
    return true;
  } catch {
    return false;
  }
})();
if (hasClientGenerator) {
  const { generate } = await import('../clients/typescript/scripts/generate.mjs');
  await generate();
} else {
  process.stdout.write(
    'The TypeScript client is not generated (its generator, a development dependency, is not installed): `npm run export` needs an install with development dependencies.\n',
  );
}
