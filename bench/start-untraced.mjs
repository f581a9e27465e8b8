// The service as `npm start` runs it (scripts/start.mjs) without the tracing preload: what it was
// before traces, the baseline of `npm run bench:tracing`, which starts it with npm start's node
// flags. dist/ is built by the benchmark first.
await import('../dist/server.js');
