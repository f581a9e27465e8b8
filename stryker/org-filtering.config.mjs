// Mutation testing of operation access and the organization a request acts in.
import { mutationGroup } from './group.mjs';

export default mutationGroup('org-filtering', {
  mutate: ['src/schema/access.ts', 'src/schema/viewer.ts', 'src/auth/principal.ts'],
  testFiles: ['test/org-access.test.ts'],
});
