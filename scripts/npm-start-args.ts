// The node arguments `npm start` runs the service with, read from package.json's "start" script:
// whatever starts the service as `npm start` does (the tests' server processes, the benchmarks)
// takes them from here, so the V8 flags there (`--liftoff-only`, scripts/start.mjs says why) are
// written once. deploy/workmgmt@.service repeats them for systemd; test/scale/deploy-files.test.ts
// checks that the two agree.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * `npm start`'s node arguments: its flags, then its script, a path from the repository's root
 * (where npm runs it) or with `absolute`, the whole path.
 */
export function npmStartArgs({ absolute = false } = {}): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`npm start is not a node command: ${scripts.start}`);
  return absolute ? args.map((arg) => (arg.startsWith('-') ? arg : join(ROOT, arg))) : args;
}

/** `npm start`'s node flags alone. */
export const npmStartFlags = (): string[] => npmStartArgs().filter((arg) => arg.startsWith('-'));
