#!/usr/bin/env node
/**
 * Mutation testing (`npm run test:mutation [-- group ...]`): runs Stryker once per group in
 * stryker/<group>.config.mjs (all of them when none is named), then prints one table of scores
 * from each group's JSON report (the config's jsonReporter.fileName; every group needs the
 * `json` reporter).
 *
 * The score counts what a test could catch: killed and timed-out mutants over all mutants
 * except the ignored ones: those marked equivalent in the source (`// Stryker disable ...:
 * reason`) and static ones (module-level values, see `ignoreStatic` in the configurations).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('..', import.meta.url).pathname;
const CONFIG_DIR = join(ROOT, 'stryker');
const STRYKER = join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js');

const groups = readdirSync(CONFIG_DIR)
  .filter((name) => name.endsWith('.config.mjs'))
  .map((name) => name.slice(0, -'.config.mjs'.length))
  .sort();
const asked = process.argv.slice(2);
const unknown = asked.filter((group) => !groups.includes(group));
if (unknown.length) {
  console.error(`Unknown group(s): ${unknown.join(', ')}. Groups: ${groups.join(', ')}`);
  process.exit(2);
}
const chosen = asked.length ? asked : groups;

// Every group runs the pglite project only: TEST_POSTGRES_URL would add the postgres one.
const env = { ...process.env };
delete env.TEST_POSTGRES_URL;

const rows = [];
for (const group of chosen) {
  console.log(`\n=== ${group} ===`);
  const configFile = join('stryker', `${group}.config.mjs`);
  const config = (await import(pathToFileURL(join(ROOT, configFile)).href)).default;
  const report = join(ROOT, config.jsonReporter?.fileName ?? 'reports/mutation/mutation.json');
  rmSync(report, { force: true });
  const run = spawnSync(process.execPath, [STRYKER, 'run', configFile], { cwd: ROOT, env, stdio: 'inherit' });
  if (!existsSync(report)) {
    rows.push({ group, error: `no report (exit ${run.status})` });
    continue;
  }
  const counts = {};
  for (const file of Object.values(JSON.parse(readFileSync(report, 'utf8')).files)) {
    for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  const n = (status) => counts[status] ?? 0;
  const detected = n('Killed') + n('Timeout');
  const undetected = n('Survived') + n('NoCoverage');
  rows.push({
    group,
    mutants: detected + undetected,
    killed: n('Killed'),
    timeout: n('Timeout'),
    survived: n('Survived'),
    noCoverage: n('NoCoverage'),
    ignored: n('Ignored'),
    score: detected + undetected ? (100 * detected) / (detected + undetected) : 100,
  });
}

const header = ['group', 'mutants', 'killed', 'timeout', 'survived', 'no coverage', 'ignored', 'score'];
const lines = rows.map((r) =>
  r.error
    ? [r.group, r.error, '', '', '', '', '', '']
    : [r.group, r.mutants, r.killed, r.timeout, r.survived, r.noCoverage, r.ignored, `${r.score.toFixed(1)}%`].map(
        String,
      ),
);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const format = (cells) =>
  `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(
  `\n${format(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${lines.map(format).join('\n')}`,
);
// Below 90% (the threshold of every group) or no report: a failure, as Stryker's `break` would be.
process.exit(rows.every((r) => !r.error && r.score >= 90) ? 0 : 1);
