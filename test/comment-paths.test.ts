import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

/** scripts/check-comment-paths.mjs on a small repository of its own (.ci/run runs it on this one). */
const SCRIPT = new URL('../scripts/check-comment-paths.mjs', import.meta.url).pathname;

let repo: string;
const write = (file: string, text: string) => {
  mkdirSync(dirname(join(repo, file)), { recursive: true });
  writeFileSync(join(repo, file), text);
};
function check(root: string) {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'comment-paths-'));
  write('src/present.ts', 'export const present = 1;\n');
  write('docs/guide.md', '# Guide\n');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('comments that name repository paths', () => {
  test('paths that exist pass: files, folders, a .js import name of a .ts module, anchors, patterns', () => {
    write(
      'test/a.test.ts',
      [
        '// src/present.ts and src/ hold it; docs/guide.md#guide says why.',
        '/** Imported as src/present.js; each of src/*.ts, src/<name>.ts is a pattern. */',
        'export const a = 1;',
      ].join('\n'),
    );
    expect(check(repo)).toEqual({ status: 0, output: expect.stringContaining('every path named in a comment') });
  });

  test('a comment naming a missing file fails with its file and line; the same path in a string does not', () => {
    write(
      'src/b.ts',
      [
        "export const where = 'src/gone-in-a-string.ts';",
        '',
        '/**',
        ' * Mirrors src/gone.ts (see test/gone.test.ts).',
        ' */',
        'export const b = `test/gone-in-a-template.ts`; // docs/gone.md',
      ].join('\n'),
    );
    const { status, output } = check(repo);
    expect(status).toBe(1);
    expect(output).toContain('src/b.ts:4: src/gone.ts');
    expect(output).toContain('src/b.ts:4: test/gone.test.ts');
    expect(output).toContain('src/b.ts:6: docs/gone.md');
    expect(output).not.toContain('in-a-string');
    expect(output).not.toContain('in-a-template');
  });
});
