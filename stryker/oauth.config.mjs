// Mutation testing of the OAuth server's checks: client authentication, code exchange with PKCE,
// refresh rotation, access-token verification, registered redirect URIs, scopes, parameters.
// test/oauth-flow.test.ts, oauth-negative and oauth-registration-redirect-uris check the same
// rules through the whole stack; each starts a database, which Stryker would do for every mutant.
import { mutationGroup } from './group.mjs';

export default mutationGroup('oauth', {
  mutate: [
    'src/auth/oauth/token.ts',
    'src/auth/oauth/client-auth.ts',
    'src/auth/oauth/access.ts',
    'src/auth/oauth/tokens.ts',
    'src/auth/oauth/redirect-uri.ts',
    'src/auth/oauth/scopes.ts',
    'src/auth/oauth/params.ts',
  ],
  testFiles: ['test/oauth-checks.test.ts'],
});
