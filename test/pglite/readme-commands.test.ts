import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerAdapter } from '@whatwg-node/server';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { root, run, runAsync } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-readme-'));
const databaseUrl = `file:${join(dir, 'data')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's example of output meant for files, line by line. */
function readmeLines(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /```sh\n(npm run -s seed -- --json > seed\.json\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README: the block that starts with `npm run -s seed -- --json > seed.json` is gone');
  return block[1]!.trim().split('\n');
}

/** A README line up to its `> file` redirection: what the shell would write to that file is its stdout. */
function commandAndFile(line: string): [string, string] {
  const match = /^(.*?) > (\S+)$/.exec(line);
  if (!match) throw new Error(`README line without a redirection: ${line}`);
  return [match[1]!, match[2]!];
}

// The exact commands, through npm and a shell as a person runs them: seconds apiece on a busy machine.
describe('the README commands whose output goes to a file write only data to stdout', { timeout: 240_000 }, () => {
  test('npm run -s seed -- --json > seed.json, then npm run -s export ... > issues.ndjson', async () => {
    const lines = readmeLines();
    const [seedCommand, seedFile] = commandAndFile(lines[0]!);
    expect(seedFile).toBe('seed.json');
    const seeded = run(seedCommand, [], { DATABASE_URL: databaseUrl }, { shell: true });
    expect(seeded.code).toBe(0);
    const seed = JSON.parse(seeded.stdout);
    expect(seed.users.length).toBeGreaterThan(0);

    const exportLine = lines.find((line) => line.startsWith('npm run -s export'))!;
    const [exportCommand, exportFile] = commandAndFile(exportLine);
    expect(exportFile).toBe('issues.ndjson');
    // What `npm start` would serve, over the seeded database, on a real socket.
    const app = await createApp(testConfig({ databaseUrl }));
    const server = createServer(createServerAdapter((request: Request) => app.fetch(request)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // TOKEN as the README's `node -p` line sets it; WM_BASE_URL stands in for the default http://localhost:4000.
      expect(lines).toContain(`TOKEN=$(node -p 'require("./seed.json").users[0].token')`);
      const exported = await runAsync(exportCommand, { TOKEN: seed.users[0].token, WM_BASE_URL: base });
      expect(exported.stderr).toMatch(/exported \d+ issues/);
      expect(exported.code).toBe(0);
      const issues = exported.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
      expect(issues.length).toBeGreaterThan(0);
      for (const issue of issues) expect(issue).toHaveProperty('key');
    } finally {
      server.close();
      await app.close();
    }
  });
});
