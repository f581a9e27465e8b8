// npm run docs:fields: writes the REST resources' field tables into docs/api.md (test/docs-fields.test.ts checks they are current).
import { readFileSync, writeFileSync } from 'node:fs';
import { withFieldTables } from '../src/rest/field-tables.js';

const file = new URL('../docs/api.md', import.meta.url);
writeFileSync(file, withFieldTables(readFileSync(file, 'utf8')));
