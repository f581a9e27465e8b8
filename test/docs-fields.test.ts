import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { withFieldTables } from '../src/rest/field-tables.js';

test("docs/api.md's field tables are those of the resource declarations (npm run docs:fields)", () => {
  const document = readFileSync(new URL('../docs/api.md', import.meta.url), 'utf8');
  expect(document).toBe(withFieldTables(document));
  expect(document).toContain('| `assignee_id` |');
});
