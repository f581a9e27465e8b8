// Mutation testing of the per-tenant bounds: input size and shape (on values and on JSON text), requests in flight per
// credential, load shedding, stream caps and the sign-in buckets.
import { mutationGroup } from './group.mjs';

export default mutationGroup('tenant-bounds', {
  mutate: [
    'src/schema/core/input-shape.ts',
    'src/schema/core/json-shape.ts',
    'src/limits/in-flight.ts',
    'src/ops/load-shedding.ts',
    'src/live/stream-slots.ts',
    'src/web/sign-in-throttle.ts',
  ],
  testFiles: ['test/tenant-bounds-checks.test.ts', 'test/json-shape.test.ts'],
});
