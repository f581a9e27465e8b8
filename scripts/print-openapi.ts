// npm run openapi:print: writes openapi.json, the OpenAPI document a production deployment at
// CONTRACT_BASE_URL serves (a test keeps it current). CI lints it (.spectral.mjs, redocly.yaml)
// and compares it with the version before the last commit that changed it (scripts/contract-check.mjs).
import { writeFileSync } from 'node:fs';
import { contractDocument } from '../src/rest/openapi-contract.js';

writeFileSync(new URL('../openapi.json', import.meta.url), contractDocument());
console.log('wrote openapi.json');
