// Mutation testing of the request guards: body limits, CSRF and the same-origin check.
import { mutationGroup } from './group.mjs';

export default mutationGroup('http-guards', {
  mutate: ['src/http/body-limit.ts', 'src/pipeline/csrf.ts', 'src/http/same-origin.ts'],
  testFiles: ['test/http-guards.test.ts'],
});
