import { groupConfig } from './vitest.base.js';

// test/oauth-flow.test.ts, test/oauth-negative.test.ts and test/oauth-registration-redirect-uris.test.ts
// check the same rules through the whole stack; each starts a database, which Stryker would do
// again for every mutant.
export default groupConfig(['test/oauth-checks.test.ts']);
