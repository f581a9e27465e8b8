// Used by .ci/run: fail loudly, before any test runs, when PostgreSQL or Redis is not reachable,
// instead of letting their suites be skipped or time out.
import pg from 'pg';
import { Redis } from 'ioredis';

const problems = [];
const pgUrl = process.env.TEST_POSTGRES_URL;
const redisUrl = process.env.TEST_REDIS_URL;

if (!pgUrl) problems.push('TEST_POSTGRES_URL is not set');
else {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    problems.push(`PostgreSQL at ${pgUrl} is not reachable: ${error.message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

if (!redisUrl) problems.push('TEST_REDIS_URL is not set');
else {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(`Redis at ${redisUrl} is not reachable: ${error.message}`);
  } finally {
    redis.disconnect();
  }
}

if (problems.length) {
  console.error(`Test services missing:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  console.error('Start them (see docs/development.md, "Running the tests") or point the variables at running servers.');
  process.exit(1);
}
console.log(`PostgreSQL and Redis reachable (${pgUrl}, ${redisUrl})`);
