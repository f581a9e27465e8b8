// `npm start`: compiles src/ to dist/ when it changed since the last build (scripts/build.mjs),
// then runs the service from dist/ in this process, so the process holds no TypeScript loader.
import { setFlagsFromString } from 'node:v8';
import { build } from './build.mjs';

// WebAssembly (Prisma's query compiler; PGlite, PostgreSQL itself) compiled by V8's baseline
// compiler only: V8's optimizing compiler holds about 50 MB more for Prisma's and 30 MB more for
// PGlite's code, and the requests of `npm run bench:memory` showed no throughput difference.
// Set before any module is compiled; V8 lists the flag among its testing ones, so it is set
// here, where a V8 without it ignores it, rather than on the command line, where node would refuse to start.
setFlagsFromString('--liftoff-only');
await build({ ifStale: true });
// The tracing preload first, so that its instrumentations wrap the modules the service imports
// next (it loads nothing when OTEL_* does not ask for traces: src/ops/tracing-start.ts).
await import('../dist/ops/tracing-start.js');
await import('../dist/server.js');
