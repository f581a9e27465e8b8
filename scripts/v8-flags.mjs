// The V8 flags the service runs with, set before any module of it is compiled: imported first by
// `npm start` (scripts/start.mjs), and by bench/start-untraced.mjs, which starts the service
// the same way without the tracing preload.
import { setFlagsFromString } from 'node:v8';

// WebAssembly (Prisma's query compiler; PGlite, PostgreSQL itself) compiled by V8's baseline
// compiler only: V8's optimizing compiler holds about 50 MB more for Prisma's and 30 MB more for
// PGlite's code, and the requests of `npm run bench:memory` showed no throughput difference.
// V8 lists the flag among its testing ones, so it is set here, where a V8 without it ignores it,
// rather than on the command line, where node would refuse to start.
setFlagsFromString('--liftoff-only');
