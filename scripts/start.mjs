// `npm start`: compiles src/ to dist/ when it changed since the last build (scripts/build.mjs),
// then runs the service from dist/ in this process, so the process holds no TypeScript loader.
import './v8-flags.mjs';
import { build } from './build.mjs';

await build({ ifStale: true });
// The tracing preload first, so that its instrumentations wrap the modules the service imports
// next (it loads nothing when OTEL_* does not ask for traces: src/ops/tracing-start.ts).
await import('../dist/ops/tracing-start.js');
await import('../dist/server.js');
