// `npm run build` (and `npm pack`, through prepack): generates the operations from openapi.json,
// then compiles the package to dist (JavaScript and declarations), the files a tarball ships.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { generate } from './generate.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
await generate();
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
process.exit(result.status ?? 1);
