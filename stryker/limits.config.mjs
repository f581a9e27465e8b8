// Mutation testing of the rate limiter and its in-process store (also the Redis store's local fallback).
import { mutationGroup } from './group.mjs';

export default mutationGroup('limits', {
  mutate: ['src/limits/memory-store.ts', 'src/limits/limiter.ts'],
  testFiles: ['test/limits/memory-store.test.ts', 'test/limits/redis-store.test.ts'],
});
