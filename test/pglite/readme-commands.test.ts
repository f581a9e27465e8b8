import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { childEnv, root, runAsync } from '../support/server-process.js';

// Every command the README shows in a ```sh block is run here, as a person runs it (through npm
// and a shell), and what it prints is checked. COMMANDS lists them with what each must do; a
// command added to the README without an entry here fails the first test, as does an entry the
// README no longer shows. The README's address is http://localhost:4000; the service runs here
// on 4622 (a port of this suite's own), and the commands get that address instead.
const PORT = '4622';
const README_BASE = 'http://localhost:4000';
const BASE = `http://localhost:${PORT}`;

/** The README's shell commands, in order (a line ending in `\` continues on the next). */
function readmeCommands(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/^\s*```sh\n([\s\S]*?)^\s*```/gm)].flatMap((block) =>
    block[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#')),
  );
}

const dir = mkdtempSync(join(tmpdir(), 'wm-readme-'));
const emptyDatabase = `file:${join(dir, 'empty')}`;
const demoDatabase = `file:${join(dir, 'demo')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A README line run by bash in a scratch directory, npm acting on this repository, as a person in the clone would. */
function shell(command: string, env: Record<string, string>) {
  const line = command.replaceAll(README_BASE, BASE).replace(/^npm /, `npm --prefix ${JSON.stringify(root)} `);
  return runAsync(`cd ${JSON.stringify(dir)} && ${line}`, env);
}

interface Service {
  stderr: () => string;
  stop: () => Promise<void>;
}

/** `npm start`, in its own process group so that npm, its shell and the service stop together. */
async function npmStart(databaseUrl: string): Promise<Service> {
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: root,
    env: childEnv({ PORT, DATABASE_URL: databaseUrl }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"msg":"listening"')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void exited.then(() => reject(new Error(`npm start exited: ${err}`)));
  });
  return {
    stderr: () => err,
    stop: async () => {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

type Check = (run: (env?: Record<string, string>) => ReturnType<typeof shell>) => Promise<void>;

const state: { token?: string; issueKey?: string } = {};
const withToken = () => ({ TOKEN: state.token!, PORT });

/** Each README command, in the README's order, with what it must do. */
const COMMANDS: [string, Check | string][] = [
  ['npm install', 'not run here: .ci/run installs the same lockfile with npm ci before every test run'],
  [
    'npm start',
    async () => {
      // On an empty database: the one-time setup link, on this address, and the page it opens.
      const service = await npmStart(emptyDatabase);
      try {
        // Printed on stderr, which may arrive after the "listening" line on stdout.
        await expect.poll(() => service.stderr(), { timeout: 15_000 }).toMatch(/setup\?token=/);
        const link = /http:\/\/localhost:\d+\/setup\?token=\S+/.exec(service.stderr())?.[0];
        expect(link).toMatch(new RegExp(`^${BASE}/setup\\?token=`));
        const page = await fetch(link!);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Project key');
      } finally {
        await service.stop();
      }
    },
  ],
  ['npm test', 'not run here: it is the command that runs this suite'],
  [
    'npm run -s admin -- create-user --email ada@example.org --name "Ada Lovelace" --username ada',
    async (run) => {
      const created = await run({ DATABASE_URL: demoDatabase, BASE_URL: BASE });
      expect(created.code).toBe(0);
      const user = JSON.parse(created.stdout);
      expect(user).toMatchObject({
        email: 'ada@example.org',
        username: 'ada',
        password_link: expect.stringMatching(new RegExp(`^${BASE}/set-password\\?token=`)),
      });
    },
  ],
  [
    'npm run -s seed -- --json > seed.json',
    async (run) => {
      const seeded = await run({ DATABASE_URL: demoDatabase });
      expect(seeded).toMatchObject({ code: 0, stdout: '' });
      const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8'));
      expect(seed.users[0]).toMatchObject({
        username: 'olivia',
        role: 'owner',
        token: expect.stringMatching(/^tok_live_/),
      });
    },
  ],
  // The demo service, then every command of a script writer against it.
  ['npm start', 'run above, and again for the demo data below'],
  [
    'export TOKEN=$(node -p \'require("./seed.json").users[0].token\')',
    async () => {
      const set = await runAsync(
        `cd ${JSON.stringify(dir)} && export TOKEN=$(node -p 'require("./seed.json").users[0].token') && printf %s "$TOKEN"`,
        {},
      );
      state.token = set.stdout;
      expect(state.token).toMatch(/^tok_live_\w{32}$/);
    },
  ],
  [
    `curl -H "Authorization: Bearer $TOKEN" ${README_BASE}/api/me`,
    async (run) => {
      expect(JSON.parse((await run(withToken())).stdout)).toMatchObject({
        username: 'olivia',
        email: expect.any(String),
      });
    },
  ],
  [
    `curl -H "Authorization: Bearer $TOKEN" ${README_BASE}/api/projects`,
    async (run) => {
      const projects = JSON.parse((await run(withToken())).stdout) as { key: string }[];
      expect(projects.map((p) => p.key)).toContain('WEB');
    },
  ],
  [
    `curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"project_id": "WEB", "title": "My first issue"}' ${README_BASE}/api/issues`,
    async (run) => {
      const issue = JSON.parse((await run(withToken())).stdout);
      expect(issue).toMatchObject({
        key: expect.stringMatching(/^WEB-\d+$/),
        title: 'My first issue',
        status: 'Backlog',
      });
      state.issueKey = issue.key;
    },
  ],
  [
    `curl -H "Authorization: Bearer $TOKEN" "${README_BASE}/api/issues?project_id=WEB&status=Backlog"`,
    async (run) => {
      const issues = JSON.parse((await run(withToken())).stdout) as { key: string; status: string }[];
      expect(issues.map((i) => i.key)).toContain(state.issueKey);
      for (const issue of issues) expect(issue.status).toBe('Backlog');
    },
  ],
  [
    'npm run -s export -- --token "$TOKEN" > issues.ndjson',
    async (run) => {
      // No address given: PORT, as `npm start` was given it, leads the export to the service.
      const exported = await run(withToken());
      expect(exported.code).toBe(0);
      expect(exported.stderr).toMatch(/^exported \d+ issues/);
      const issues = readFileSync(join(dir, 'issues.ndjson'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { key: string });
      expect(issues.map((i) => i.key)).toContain(state.issueKey);
    },
  ],
];

describe('the README commands', { timeout: 300_000 }, () => {
  test('every command the README shows has an entry here, and every entry is a command it shows', () => {
    const shown = readmeCommands();
    const listed = COMMANDS.map(([command]) => command);
    expect([...new Set(shown)].filter((command) => !listed.includes(command))).toEqual([]);
    expect(listed.filter((command) => !shown.includes(command))).toEqual([]);
  });

  test('each does what the README says, with the output checked', async () => {
    const run =
      (command: string) =>
      (env: Record<string, string> = {}) =>
        shell(command, env);
    const checks = new Map<string, Check>();
    for (const [command, check] of COMMANDS)
      if (typeof check !== 'string' && !checks.has(command)) checks.set(command, check);
    // The empty service first (its setup link), the account and the demo data with it stopped
    // (one process per embedded data directory), then the demo service for the API commands.
    for (const command of [
      'npm start',
      'npm run -s seed -- --json > seed.json',
      'npm run -s admin -- create-user --email ada@example.org --name "Ada Lovelace" --username ada',
    ]) {
      await checks.get(command)!(run(command));
    }
    const service = await npmStart(demoDatabase);
    try {
      for (const [command, check] of checks) {
        if (
          command.startsWith('npm start') ||
          command.startsWith('npm run -s seed') ||
          command.startsWith('npm run -s admin')
        )
          continue;
        await check(run(command));
      }
    } finally {
      await service.stop();
    }
  });
});
