// Mutation testing of where sign-in sends a person next (open redirects).
import { mutationGroup } from './group.mjs';

export default mutationGroup('next-path', {
  mutate: ['src/web/next-path.ts'],
  testFiles: ['test/next-path.test.ts'],
});
