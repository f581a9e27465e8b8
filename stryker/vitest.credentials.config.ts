import { groupConfig } from './vitest.base.js';

// test/sessions.test.ts, test/pat-auth.test.ts and test/pat-cache.test.ts check the same rules
// through the whole stack; each starts a database, which Stryker would do again for every mutant.
export default groupConfig(['test/credentials.test.ts']);
