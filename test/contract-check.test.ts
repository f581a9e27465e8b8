import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

/**
 * scripts/contract-check.mjs on a repository of its own: the project's real openapi.json and
 * schema.graphql committed, then changed the way a commit would change them.
 */
const SCRIPT = new URL('../scripts/contract-check.mjs', import.meta.url).pathname;
const OPENAPI = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');
const SDL = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');

let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const write = (file: string, text: string) => writeFileSync(join(repo, file), text);
function commit(message: string) {
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', message);
}
function check() {
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: repo, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
function withoutRoute(path: string): string {
  const document = JSON.parse(OPENAPI);
  delete document.paths[path];
  return `${JSON.stringify(document, null, 2)}\n`;
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'contract-check-'));
  git('init', '-q', '-b', 'main');
  write('openapi.json', OPENAPI);
  write('schema.graphql', SDL);
  write('CHANGELOG.md', '# Changelog\n');
  commit('The contracts');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('contract check', () => {
  test('additions pass', () => {
    write('schema.graphql', `${SDL}\ntype Extra {\n  id: ID!\n}\n`);
    commit('Add a type');
    const { status, output } = check();
    expect(output).toContain('schema.graphql: no breaking change');
    expect(status).toBe(0);
  });

  test('a removed REST route fails, unless the commit message says BREAKING CHANGE', () => {
    write('openapi.json', withoutRoute('/me'));
    commit('Drop GET /me');
    const refused = check();
    expect(refused.status).toBe(1);
    expect(refused.output).toMatch(/openapi\.json: \d+ breaking change\(s\).*not said to be intended/);
    expect(refused.output).toContain('remove paths./me.get');

    git(
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-q',
      '--amend',
      '-m',
      'Drop GET /me\n\nBREAKING CHANGE: GET /me is gone; use GET /me/orgs.',
    );
    const accepted = check();
    expect(accepted.output).toContain('intended (a commit message says BREAKING CHANGE)');
    expect(accepted.status).toBe(0);
  });

  test('a GraphQL field made nullable fails, unless CHANGELOG.md gains a BREAKING entry in the same change', () => {
    const weakened = SDL.replace(/^(type Issue [\s\S]*?\n {2}title: )String!/m, '$1String');
    expect(weakened).not.toBe(SDL);
    write('schema.graphql', weakened);
    commit('Issue.title nullable');
    const refused = check();
    expect(refused.status).toBe(1);
    expect(refused.output).toContain('Issue.title changed type from String! to String');

    write('CHANGELOG.md', '# Changelog\n\n- **BREAKING**: `Issue.title` may be null.\n');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--amend', '--no-edit');
    expect(check().status).toBe(0);
  });

  test("a renamed operationId keeps the HTTP contract but breaks the generated client's users: it fails unless said", () => {
    const document = JSON.parse(OPENAPI);
    document.paths['/issues'].get.operationId = 'getIssues';
    write('openapi.json', `${JSON.stringify(document, null, 2)}\n`);
    commit('listIssues is getIssues');
    const refused = check();
    expect(refused.status).toBe(1);
    expect(refused.output).toContain('client method listIssues() removed');
    expect(refused.output).toContain('client type ListIssuesData removed');
    expect(refused.output).not.toContain('remove paths');

    write('CHANGELOG.md', '# Changelog\n\n- **BREAKING** (client): `listIssues` is `getIssues`.\n');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--amend', '--no-edit');
    expect(check().status).toBe(0);
  });

  test('a response field made optional fails through the client types too', () => {
    const document = JSON.parse(OPENAPI);
    const issue = document.components.schemas.Issue;
    issue.required = issue.required.filter((field: string) => field !== 'title');
    write('openapi.json', `${JSON.stringify(document, null, 2)}\n`);
    commit('Issue.title optional');
    const refused = check();
    expect(refused.status).toBe(1);
    expect(refused.output).toContain('client type Issue may now hold what code written for it does not expect');
  });

  test('an uncommitted change is compared with HEAD', () => {
    write('openapi.json', withoutRoute('/projects'));
    const { status, output } = check();
    expect(status).toBe(1);
    expect(output).toContain('uncommitted changes');
  });
});
