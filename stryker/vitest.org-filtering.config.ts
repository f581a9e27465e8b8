import { groupConfig } from './vitest.base.js';

// test/isolation-matrix.test.ts checks the same rules through the whole stack; it starts a
// database, which Stryker would do again for every mutant.
export default groupConfig(['test/org-access.test.ts']);
