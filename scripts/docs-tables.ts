// npm run docs:tables: writes the tables of docs/api.md made from declarations (the issue list's parameters, the
// resources' fields, the errors); test/docs-tables.test.ts checks they are current.
import { readFileSync, writeFileSync } from 'node:fs';
import { withDocTables } from '../src/rest/doc-tables.js';

const file = new URL('../docs/api.md', import.meta.url);
writeFileSync(file, withDocTables(readFileSync(file, 'utf8')));
