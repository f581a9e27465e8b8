import { groupConfig } from './vitest.base.js';

// test/body-limits.test.ts, test/sessions.test.ts and test/cors.test.ts check the same rules through
// the whole stack; each starts a database, which Stryker would do again for every mutant.
export default groupConfig(['test/http-guards.test.ts']);
