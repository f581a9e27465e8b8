import { testConfig } from '../config.js';
import { openApiDocument } from './openapi.js';
import { ROUTES } from './routes/index.js';

/**
 * The BASE_URL of the checked-in openapi.json: a name reserved for examples (RFC 2606 `.test`),
 * served over https as a production deployment would be, so the linters judge what clients get.
 */
const CONTRACT_BASE_URL = 'https://workmgmt.test';

/** openapi.json as `npm run openapi:print` writes it. */
export function contractDocument(): string {
  const config = { ...testConfig(), baseUrl: CONTRACT_BASE_URL, production: true };
  return `${JSON.stringify(openApiDocument(config, ROUTES), null, 2)}\n`;
}
