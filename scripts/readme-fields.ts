// npm run docs:fields: writes the REST resources' field tables into README.md (test/readme-fields.test.ts checks they are current).
import { readFileSync, writeFileSync } from 'node:fs';
import { withFieldTables } from '../src/rest/field-tables.js';

const file = new URL('../README.md', import.meta.url);
writeFileSync(file, withFieldTables(readFileSync(file, 'utf8')));
