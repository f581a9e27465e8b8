// npm run export -- [--base-url URL] --token T [--token T2 ...] [--project ID ...]
// Writes every issue of the projects (default: all projects of the token's org) as NDJSON on stdout,
// through the public API, with one worker per token and the spec's rate-limit behaviour.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiProblem, exportIssues, WorkmgmtClient } from '@workmgmt/client';
import { checkReachable, clientBaseUrl } from './service-address.js';

const HELP = `Usage: npm run export -- [--base-url URL] --token TOKEN [--token TOKEN ...] [--project ID ...]

Exports issues as NDJSON (one JSON object per line) on stdout. Give 4 to 8 tokens (one per
worker, each with its own rate-limit budget) for large exports. Without --project, every project
of the first token's organization. Progress and totals go to stderr.

The service's address: --base-url, else WM_BASE_URL, else BASE_URL, else http://localhost:$PORT
(port 4000), as the service itself defaults. The token: --token, else WM_TOKEN.`;

const OPTIONS = {
  'base-url': { type: 'string' },
  token: { type: 'string', multiple: true, default: process.env.WM_TOKEN ? [process.env.WM_TOKEN] : [] },
  project: { type: 'string', multiple: true, default: [] as string[] },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

// Usage mistakes: one line on stderr (stdout is the export), exit status 2.
const { values } = (() => {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    process.stderr.write(`${(error as Error).message} (npm run export -- --help lists the options)\n`);
    return process.exit(2);
  }
})();

if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
if (values.token.length === 0) {
  process.stderr.write(
    'Give at least one token: --token TOKEN (or WM_TOKEN). (npm run export -- --help lists the options)\n',
  );
  process.exit(2);
}
const baseUrl = clientBaseUrl(values['base-url'], process.env);
try {
  await checkReachable(baseUrl);
  let projectIds = values.project;
  if (projectIds.length === 0) {
    const { data } = await new WorkmgmtClient({ baseUrl, token: values.token[0]! }).listMyOrgs();
    projectIds = data.orgs.flatMap((o) => o.projects.map((p) => p.id));
  }
  const started = Date.now();
  const result = await exportIssues({ baseUrl, tokens: values.token, projectIds }, (issue) =>
    process.stdout.write(`${JSON.stringify(issue)}\n`),
  );
  process.stderr.write(
    `exported ${result.issues} issues from ${projectIds.length} projects with ${values.token.length} workers in ${Date.now() - started} ms (waited ${result.waitedMs} ms for rate limits)\n`,
  );
} catch (error) {
  const message =
    error instanceof ApiProblem
      ? `HTTP ${error.status}: ${error.detail}`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
