// `npm start`: compiles src/ to dist/ when it changed since the last build (scripts/build.mjs),
// then runs the service from dist/ in this process, so the process holds no TypeScript loader.
//
// `npm start` runs it as `node --liftoff-only scripts/start.mjs` (package.json; the systemd unit
// deploy/workmgmt@.service the same): WebAssembly (PGlite, which is PostgreSQL itself, and Prisma's
// query compiler) compiled by V8's baseline compiler only. Without it V8 compiles PGlite's module
// again with its optimizing compiler in the seconds after start, which takes about 560 MB more at
// its peak and keeps about 40 MB more (a restart on the embedded database, idle, Node 24.21: 836
// and 872 MB at the peak and 320 MB after, against 281 to 284 MB for both). The flag must be on
// node's command line: set from here with v8.setFlagsFromString it changes nothing on Node 24,
// and NODE_OPTIONS refuses it.
import { build } from './build.mjs';

await build({ ifStale: true });
// The tracing preload first, so that its instrumentations wrap the modules the service imports
// next (it loads nothing when OTEL_* does not ask for traces: src/ops/tracing-start.ts).
await import('../dist/ops/tracing-start.js');
await import('../dist/server.js');
