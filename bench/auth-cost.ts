// The in-process cost of authentication plus rate limiting (bench/lib/inprocess.ts), measured
// in a process of its own: `npm run bench` starts it pinned to the servers' core, once no load
// runs, with the database URL and the dataset's plan on stdin, and reads the result as JSON from
// stdout. Measured inside the load generator instead (its heap holding the seeded plan, its
// histograms and its captured SQL), the same code's p50 moved between 22 and 42 µs from run to
// run; it still moves from one fresh process to the next (see bench/run.ts), so several are run.
import { readFileSync } from 'node:fs';
import type { Plan } from './lib/dataset.js';
import { measureAuthCost } from './lib/inprocess.js';

const { url, plan } = JSON.parse(readFileSync(0, 'utf8')) as { url: string; plan: Plan };
process.stdout.write(JSON.stringify(await measureAuthCost(url, plan)));
