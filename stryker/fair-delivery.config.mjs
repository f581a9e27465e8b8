// Mutation testing of webhook delivery's fairness: round robin across organizations, the caps per
// endpoint and organization, and the circuit breaker.
import { mutationGroup } from './group.mjs';

export default mutationGroup('fair-delivery', {
  mutate: ['src/webhooks/fairness.ts', 'src/webhooks/circuit.ts'],
  testFiles: ['test/fair-delivery-checks.test.ts'],
});
