import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { withFieldTables } from '../src/rest/field-tables.js';

test("the README's field tables are those of the resource declarations (npm run docs:fields)", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  expect(readme).toBe(withFieldTables(readme));
  expect(readme).toContain('| `assignee_id` |');
});
