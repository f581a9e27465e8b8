// npm run docs:errors: writes the error tables into docs/api.md (test/error-table.test.ts checks they are current).
import { readFileSync, writeFileSync } from 'node:fs';
import { withErrorTables } from '../src/schema/core/error-docs.js';

const file = new URL('../docs/api.md', import.meta.url);
writeFileSync(file, withErrorTables(readFileSync(file, 'utf8')));
