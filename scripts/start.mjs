// `npm start`: compiles src/ to dist/ when it changed since the last build (scripts/build.mjs),
// then runs the service from dist/ in this process, so the process holds no TypeScript loader.
import { build } from './build.mjs';

await build({ ifStale: true });
await import('../dist/server.js');
