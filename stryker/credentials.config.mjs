// Mutation testing of the credential strategies: sessions, presented credentials, passwords, the PAT cache.
import { mutationGroup } from './group.mjs';

export default mutationGroup('credentials', {
  mutate: ['src/auth/session.ts', 'src/auth/authenticate.ts', 'src/auth/password.ts', 'src/auth/pat-cache.ts'],
  testFiles: ['test/credentials.test.ts'],
});
