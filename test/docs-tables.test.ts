import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { withDocTables } from '../src/rest/doc-tables.js';
import { ISSUE_FILTER_PARAMETERS } from '../src/schema/issues/filter.js';

/** docs/api.md's generated tables (npm run docs:tables): current, and each made from its declaration. */
const document = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
const between = (name: string) =>
  document.slice(document.indexOf(`<!-- ${name}:start`), document.indexOf(`<!-- ${name}:end`));

describe("docs/api.md's generated tables", () => {
  test('are those the declarations make (else: npm run docs:tables)', () => {
    expect(document).toBe(withDocTables(document));
  });

  test('a stale row is caught: the tables are written back as the declarations make them', () => {
    const stale = document.replace(/^\| `q` \|.*$/m, '| `q` | text | Written by hand. |');
    expect(stale).not.toBe(document);
    expect(withDocTables(stale)).toBe(document);
  });

  test("the issue list's parameters: each of the filter's, with its description", () => {
    const table = between('issue-list-parameters');
    expect(ISSUE_FILTER_PARAMETERS.length).toBeGreaterThan(0);
    const rows = table.split('\n');
    for (const { name, description } of ISSUE_FILTER_PARAMETERS) {
      const row = rows.find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toContain(`| ${description}`);
    }
    expect(table).toContain('| `status` | a list (at most 100), each one of `Backlog`, `Todo`,');
    expect(table).toContain('| `limit` | an integer from 1 to 100 |');
  });

  test('the fields and the errors', () => {
    expect(between('fields')).toContain('| `assignee_id` |');
    expect(between('errors')).toContain('| 503 Service Unavailable | `too_many_connections` |');
  });
});
