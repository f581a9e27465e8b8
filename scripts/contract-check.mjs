#!/usr/bin/env node
// npm run contract:check (and .ci/run): the API contracts never break silently.
//
// For openapi.json and schema.graphql: compares the file with its version before the last change
// to it (the last commit on main's first-parent line that changed it, so a merge counts as one
// change; or, when the file has uncommitted changes, with HEAD). A breaking change fails the check
// unless it is said to be intended: a commit of that change whose message has a line starting
// `BREAKING CHANGE:` (the Conventional Commits footer), or a line added to CHANGELOG.md by that
// change containing `BREAKING`.
//
// OpenAPI: api-smart-diff (OpenAPI 3.1 documents; the npm ports of oasdiff and openapi-diff read
// 3.0 only) classifies each change, and the client package generated from both versions must keep
// its public types compatible (scripts/client-type-check.mjs: a renamed operationId breaks its
// users though the HTTP contract holds); GraphQL: `graphql-inspector diff`, whose exit status says
// whether a change breaks.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { clientTypeBreaks } from './client-type-check.mjs';

// The repository checked is the working directory (npm and .ci/run run from the project's root).
const root = process.cwd();
const tools = new URL('..', import.meta.url).pathname;
const git = (...args) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const tryGit = (...args) => {
  try {
    return git(...args);
  } catch {
    return null;
  }
};

/** The change to compare: `base` (a commit) against the current file, and where to look for intent. */
function lastChange(file) {
  const current = readFileSync(join(root, file), 'utf8');
  const committed = tryGit('show', `HEAD:${file}`);
  if (committed !== null && committed !== current) {
    // Not committed yet: compared with HEAD; intent can only be in the working CHANGELOG.md.
    const changelog = tryGit('diff', 'HEAD', '--', 'CHANGELOG.md') ?? '';
    return { base: 'HEAD', before: committed, current, messages: '', changelog, what: 'uncommitted changes' };
  }
  const commit = tryGit('log', '--first-parent', '-1', '--format=%H', '--', file)?.trim();
  if (!commit) return null;
  const before = tryGit('show', `${commit}^1:${file}`);
  if (before === null) return null; // the file's first version: nothing to compare with
  const range = `${commit}^1..${commit}`;
  return {
    base: `${commit.slice(0, 10)}^1`,
    before,
    current,
    messages: git('log', '--format=%B', range),
    changelog: git('diff', `${commit}^1`, commit, '--', 'CHANGELOG.md'),
    what: `${git('log', '-1', '--format=%h %s', commit).trim()}`,
  };
}

function intended(change) {
  if (/^BREAKING[ -]CHANGE:/m.test(change.messages)) return 'a commit message says BREAKING CHANGE';
  const added = change.changelog.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++'));
  if (added.some((line) => line.includes('BREAKING'))) return 'CHANGELOG.md says BREAKING';
  return null;
}

/** Breaking changes between two OpenAPI documents, as readable lines. */
function openApiBreaks(before, after) {
  const { diffs } = apiCompare(JSON.parse(before), JSON.parse(after));
  // Components are compared where they are used ($refs resolved into paths), except security schemes, used by name.
  const counted = diffs.filter(
    (d) => d.type === 'breaking' && (d.path[0] !== 'components' || d.path[1] === 'securitySchemes'),
  );
  return counted.map((d) => `${d.action} ${d.path.join('.')}${d.description ? `: ${d.description}` : ''}`);
}

/** Breaking changes between two SDL files, as graphql-inspector reports them. */
function graphqlBreaks(before, after) {
  const dir = mkdtempSync(join(tmpdir(), 'contract-'));
  try {
    writeFileSync(join(dir, 'before.graphql'), before);
    writeFileSync(join(dir, 'after.graphql'), after);
    const bin = join(tools, 'node_modules', '.bin', 'graphql-inspector');
    const run = spawnSync(bin, ['diff', join(dir, 'before.graphql'), join(dir, 'after.graphql')], { encoding: 'utf8' });
    if (run.status === 0) return [];
    const lines = `${run.stdout}\n${run.stderr}`.split('\n').filter((line) => line.includes('✖'));
    if (!lines.length) throw new Error(`graphql-inspector failed:\n${run.stdout}\n${run.stderr}`);
    return lines.map((line) => line.replace(/^\[log\]\s*✖\s*/, ''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What breaks users of the HTTP API, then what breaks users of the generated client. */
const openApiAndClientBreaks = async (before, after) => [
  ...openApiBreaks(before, after),
  ...(await clientTypeBreaks(before, after)),
];

const CONTRACTS = [
  { file: 'openapi.json', breaks: openApiAndClientBreaks },
  { file: 'schema.graphql', breaks: graphqlBreaks },
];

let failed = false;
for (const { file, breaks } of CONTRACTS) {
  const change = lastChange(file);
  if (!change) {
    console.log(`${file}: no earlier version to compare with`);
    continue;
  }
  const found = await breaks(change.before, change.current);
  if (!found.length) {
    console.log(`${file}: no breaking change since ${change.base} (${change.what})`);
    continue;
  }
  const why = intended(change);
  const shown =
    found
      .slice(0, 40)
      .map((line) => `  - ${line}`)
      .join('\n') + (found.length > 40 ? `\n  ... and ${found.length - 40} more` : '');
  if (why) {
    console.log(
      `${file}: ${found.length} breaking change(s) since ${change.base} (${change.what}), intended (${why}):\n${shown}`,
    );
  } else {
    failed = true;
    console.error(
      `${file}: ${found.length} breaking change(s) since ${change.base} (${change.what}), not said to be intended:\n${shown}\n` +
        'If they are intended, say so: a `BREAKING CHANGE: <what and why>` line in the commit message, or an entry in CHANGELOG.md containing BREAKING.',
    );
  }
}
process.exit(failed ? 1 : 0);
