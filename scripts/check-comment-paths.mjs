// Fails when a comment in src, test, bench or scripts names a repository path (src/..., test/...,
// docs/..., bench/..., scripts/..., prisma/...) that does not exist, so that a comment pointing at a
// moved or deleted file is caught by CI (.ci/run) rather than by a reader.
// Comments are found with TypeScript's parser, so paths in strings and code are not read as comments.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The repository to check: this one, or the folder given as the first argument (the script's test).
const ROOT = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
const SCANNED = ['src', 'test', 'bench', 'scripts'];
const SKIPPED = new Set(['src/generated', 'bench/results', 'bench/scratch']);
const EXTENSIONS = /\.(ts|mjs|js)$/;
/** Where benchmarks write their results (not committed): a path there exists only after a run. */
const OUTPUTS = ['bench/results/'];

// A path starts a word (after a space, quote, backtick or bracket) and runs until a character a
// path of this repository never holds. Patterns (`*`, `<name>`, `{a,b}`) and `$` are not checked.
const PATH = /(?<=^|[\s`'"([])(?:src|test|docs|bench|scripts|prisma)\/[\w./*<>{}$-]*/g;

function* files(dir) {
  if (!existsSync(join(ROOT, dir))) return;
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (SKIPPED.has(path)) continue;
    if (statSync(join(ROOT, path)).isDirectory()) yield* files(path);
    else if (EXTENSIONS.test(name)) yield path;
  }
}

/** Every comment of a module, from its syntax tree (so text in strings, templates and regexes is not taken for one). */
function comments(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = new Map();
  const collect = (ranges) => {
    for (const range of ranges ?? [])
      found.set(range.pos, { text: text.slice(range.pos, range.end), start: range.pos });
  };
  const visit = (node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  return found.values();
}

/** Whether `path` (trailing punctuation, `#anchor` and `:line` dropped) names a file or folder. */
function exists(path) {
  const bare = path
    .replace(/#.*$/, '')
    .replace(/:\d+$/, '')
    .replace(/[.,:;)]+$/, '');
  if (/[*<>{}$]/.test(bare) || bare.endsWith('/...')) return true;
  if (OUTPUTS.some((dir) => bare.startsWith(dir))) return true;
  if (existsSync(join(ROOT, bare))) return true;
  // Imports name a module `.js` where its source is `.ts`.
  return bare.endsWith('.js') && existsSync(join(ROOT, bare.replace(/\.js$/, '.ts')));
}

const missing = [];
for (const dir of SCANNED) {
  for (const file of files(dir)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    if (text.search(PATH) === -1) continue;
    for (const comment of comments(file, text)) {
      for (const match of comment.text.matchAll(PATH)) {
        if (exists(match[0])) continue;
        const line = text.slice(0, comment.start + match.index).split('\n').length;
        missing.push(`${file}:${line}: ${match[0]}`);
      }
    }
  }
}

if (missing.length) {
  console.error(`Comments naming paths that do not exist (${missing.length}):\n${missing.join('\n')}`);
  process.exit(1);
}
console.log(`comment paths: every path named in a comment under ${SCANNED.join(', ')} exists`);
