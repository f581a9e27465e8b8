// Mutation testing of Idempotency-Key handling: the key, its store, the per-user quota, the run.
import { mutationGroup } from './group.mjs';

export default mutationGroup('idempotency', {
  mutate: [
    'src/idempotency/store.ts',
    'src/idempotency/quota.ts',
    'src/idempotency/key.ts',
    'src/idempotency/graphql-reads.ts',
    'src/idempotency/run.ts',
    'src/idempotency/http.ts',
  ],
  testFiles: ['test/idempotency-checks.test.ts'],
});
