// Mutation testing of operation access and the organization a request acts in.
import { mutationGroup } from './group.mjs';

export default mutationGroup('org-filtering', {
  mutate: ['src/schema/core/access.ts', 'src/schema/people/viewer.ts', 'src/auth/principal.ts'],
  testFiles: ['test/org-access.test.ts'],
});
