// npm run bench:limiter — what rate limiting costs per request, in memory and on Redis, and
// what an idle token's bucket costs in memory. Run with --expose-gc (the npm script does).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { RateLimiter } from '../src/limits/limiter.js';
import { rateLimitSubject } from '../src/pipeline/rate-limit.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { RedisStore } from '../src/limits/redis-store.js';

const REDIS_URL = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const gc = (globalThis as { gc?: () => void }).gc;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Latency of one admission (subject derivation included), sequentially, in microseconds. */
async function sequential(limiter: RateLimiter, subjects: string[], n: number) {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await limiter.admit(rateLimitSubject(subjects[i % subjects.length]!, '127.0.0.1'));
    samples.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  samples.sort((a, b) => a - b);
  return {
    n,
    p50_us: +percentile(samples, 50).toFixed(2),
    p99_us: +percentile(samples, 99).toFixed(2),
    mean_us: +(samples.reduce((a, b) => a + b, 0) / n).toFixed(2),
  };
}

/** Admissions per second with `inFlight` concurrent callers. */
async function throughput(limiter: RateLimiter, subjects: string[], n: number, inFlight: number) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await limiter.admit(rateLimitSubject(subjects[next++ % subjects.length]!, '127.0.0.1'));
    }),
  );
  return { n, in_flight: inFlight, per_second: Math.round(n / ((performance.now() - start) / 1000)) };
}

async function idleBucketBytes(count: number) {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const store = new MemoryStore();
  const limiter = new RateLimiter(store);
  for (let i = 0; i < count; i++) await limiter.admit(rateLimitSubject(`tok_${i}`, '127.0.0.1'));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  const bytes = Math.round((after - before) / count);
  await limiter.close();
  return { tokens: count, bytes_per_idle_token: bytes, measured_with_gc: Boolean(gc) };
}

const tokens = Array.from({ length: 1000 }, () => `tok_live_${randomBytes(24).toString('base64url')}`);
const memory = new RateLimiter(new MemoryStore());
const redis = new RedisStore(REDIS_URL, { prefix: `bench:${randomBytes(4).toString('hex')}:` });
await redis.ready();
const shared = new RateLimiter(redis);

await sequential(memory, tokens, 20_000); // warm-up
const report = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  memory_store: {
    sequential: await sequential(memory, tokens, 200_000),
    throughput: await throughput(memory, tokens, 200_000, 64),
  },
  redis_store: {
    url: REDIS_URL.replace(/\/\/[^@]*@/, '//***@'),
    sequential: await sequential(shared, tokens, 10_000),
    throughput: await throughput(shared, tokens, 50_000, 64),
  },
  memory_per_idle_token: await idleBucketBytes(100_000),
};
await memory.close();
await shared.close();
// The bench's Redis keys expire with their windows (at most a minute).

mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/limiter.json', `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
process.exit(0);
