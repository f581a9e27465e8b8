// The service as `npm start` runs it (scripts/start.mjs) without the tracing preload: what it was
// before traces, the baseline of `npm run bench:tracing`. dist/ is built by the benchmark first.
import '../scripts/v8-flags.mjs';

await import('../dist/server.js');
