// Mutation testing of personal access tokens: their format and checksum, and how a request's token is resolved.
import { mutationGroup } from './group.mjs';

export default mutationGroup('pat', {
  mutate: ['src/auth/pat.ts', 'src/auth/pat-token.ts'],
  testFiles: ['test/pat-token.test.ts', 'test/pat-lookup.test.ts'],
});
