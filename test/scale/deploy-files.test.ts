import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { npmStartArgs } from '../../scripts/npm-start-args.js';
import { root } from '../support/server-process.js';

// The deploy/ files as their own tools read them; the scale-out suite (scale-out.test.ts) runs them.

const hasSystemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0;

test.runIf(hasSystemdAnalyze)('systemd reads the unit without a complaint about its keys or values', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wm-unit-'));
  try {
    copyFileSync(join(root, 'deploy', 'workmgmt@.service'), join(dir, 'workmgmt@.service'));
    const out = spawnSync('systemd-analyze', ['verify', join(dir, 'workmgmt@4001.service')], { encoding: 'utf8' });
    // Where the machine has no /usr/bin/node or no user workmgmt, verify says so: those are the installer's to make.
    const complaints = out.stderr
      .split('\n')
      .filter((line) => line.trim() && !/not executable|No such file|user|group/i.test(line));
    expect(complaints).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('HAProxy accepts its configuration with the addresses deploy/README.md sets', () => {
  const out = spawnSync('haproxy', ['-c', '-f', join(root, 'deploy', 'haproxy.cfg')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      WM_LISTEN: ':80',
      WM_HAPROXY_RUN: tmpdir(),
      WM_INSTANCE_1: '127.0.0.1:4001',
      WM_INSTANCE_2: '127.0.0.1:4002',
      WM_INSTANCE_3: '127.0.0.1:4003',
    },
  });
  expect(`${out.stdout}${out.stderr}`).toContain('Configuration file is valid');
  expect(out.stderr).not.toMatch(/WARNING|ALERT/);
});

test("the unit starts an instance with npm start's node arguments (its V8 flags too)", () => {
  const unit = readFileSync(join(root, 'deploy', 'workmgmt@.service'), 'utf8');
  const execStart = /^ExecStart=(\S+) (.*)$/m.exec(unit);
  expect(execStart?.[1]).toBe('/usr/bin/node');
  expect(execStart?.[2]?.split(/\s+/)).toEqual(npmStartArgs());
  expect(npmStartArgs()).toContain('--liftoff-only');
});
