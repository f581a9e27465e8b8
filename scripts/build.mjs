// Compiles src/ to plain JavaScript in dist/ (git-ignored), which `npm start` runs: a process
// that loads TypeScript through a loader at start holds about 100 MB more (the loader's thread
// and its transforms; bench/memory.ts measures it). Each file is compiled on its own, keeping
// the layout of src/ and copying its other files (templates, scripts for the pages), so paths
// resolved from import.meta.url land where they do in src/. Type checking stays `npm run typecheck`.
//
// `node scripts/build.mjs` builds; with --if-stale (as `npm start` calls it), only when a file
// under src/ (or this script) differs from what the last build read, so a start without changes
// costs a walk of the tree. The new tree is built beside dist/ and swapped in, so a second process
// starting meanwhile never sees a half-written one.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const src = join(root, 'src');
const dist = join(root, 'dist');
const manifestName = '.sources.json';

/** Every file under src/ (and this script) with its size and modification time. */
function sources() {
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  files.push(fileURLToPath(import.meta.url));
  return files.sort().map((file) => {
    const { size, mtimeMs } = statSync(file);
    return [relative(root, file), size, mtimeMs];
  });
}

function isFresh(current) {
  const path = join(dist, manifestName);
  if (!existsSync(path)) return false;
  return readFileSync(path, 'utf8') === JSON.stringify(current);
}

export async function build({ ifStale = false } = {}) {
  const current = sources();
  if (ifStale && isFresh(current)) return false;
  const esbuild = await import('esbuild');
  const out = `${dist}.${process.pid}.tmp`;
  rmSync(out, { recursive: true, force: true });
  const files = current.map(([file]) => join(root, file)).filter((file) => file.startsWith(src));
  try {
    await esbuild.build({
      entryPoints: files.filter((file) => file.endsWith('.ts')),
      outdir: out,
      outbase: src,
      format: 'esm',
      platform: 'node',
      target: 'node22',
      // For stack traces in TypeScript lines: NODE_OPTIONS=--enable-source-maps (off by default:
      // Node then reads every map at load, which costs memory).
      sourcemap: 'linked',
      logLevel: 'warning',
    });
  } finally {
    // The compiler runs as a child process; stopping it lets this process go on without it.
    await esbuild.stop();
  }
  for (const file of files.filter((f) => !f.endsWith('.ts'))) {
    const target = join(out, relative(src, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
  }
  writeFileSync(join(out, manifestName), JSON.stringify(current));
  swapIn(out);
  return true;
}

/**
 * Puts the tree built in `out` at dist/. Processes started together may all have built one from
 * the same sources: one that finds dist/ moved away or already replaced by another's leaves
 * that one in place.
 */
function swapIn(out) {
  const old = `${dist}.${process.pid}.old`;
  try {
    renameSync(dist, old);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(out, dist);
  } catch (error) {
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
  rmSync(out, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await build({ ifStale: process.argv.includes('--if-stale') });
  process.stdout.write(built ? 'dist/ built from src/\n' : 'dist/ is up to date\n');
}
