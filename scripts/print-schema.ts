// npm run schema:print: writes the GraphQL SDL to schema.graphql (a test keeps it current).
import { writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/schema/index.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), `${printSchema(lexicographicSortSchema(schema))}\n`);
console.log('wrote schema.graphql');
