import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ENV_VARIABLES } from '../src/config.js';
import { PROBLEM_CODES } from '../src/rest/openapi-protocol.js';
import { root } from './support/server-process.js';

// The README is where users start and stays short; the reference lives in docs/, each fact in
// one file, every link inside the repository and pointing at something that is there.
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const DOCUMENTS = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The text outside fenced code blocks (a link or heading inside one is an example, not one). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

describe('the documentation', () => {
  test('the README is short: at most 200 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });

  test('every relative link resolves to a file of the repository, and an anchor to a heading of that file', () => {
    const broken: string[] = [];
    for (const document of DOCUMENTS) {
      for (const [, target] of prose(read(document)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https://, mailto:
        const [path, anchor] = target!.split('#');
        const file = path ? resolve(dirname(join(root, document)), path) : join(root, document);
        if (relative(root, file).startsWith('..')) broken.push(`${document}: ${target} points outside the repository`);
        else if (!existsSync(file)) broken.push(`${document}: ${target} does not exist`);
        else if (anchor && file.endsWith('.md')) {
          const headings = [...prose(readFileSync(file, 'utf8')).matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!));
          if (!headings.includes(anchor)) broken.push(`${document}: ${target} names no heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test('docs/configuration.md has one row for every variable the service reads, and no README or other docs file has a variable table', () => {
    const configuration = read('docs/configuration.md');
    const rows = [...configuration.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect([...rows].sort()).toEqual([...ENV_VARIABLES].sort());
    for (const document of DOCUMENTS.filter((d) => d !== 'docs/configuration.md')) {
      expect(read(document), document).not.toMatch(/^\| Variable \|/m);
    }
  });

  test('docs/api.md "Errors" names every stable problem code', () => {
    const api = read('docs/api.md');
    const errors = api.slice(api.indexOf('## Errors'), api.indexOf('\n## ', api.indexOf('## Errors') + 1));
    const missing = Object.values(PROBLEM_CODES)
      .flat()
      .filter((code) => !errors.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  test('the GraphQL and API examples use the default port, 4000', () => {
    for (const document of DOCUMENTS) expect(read(document), document).not.toMatch(/localhost:(?!4000\b)\d+\/api/);
  });
});
