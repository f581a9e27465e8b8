import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { mintApiKey } from '../src/auth/api-keys.js';
import { testConfig } from '../src/config.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function freshToken() {
  const user = t.user('mark');
  return (await mintApiKey(t.app.db.prisma, { userId: user.id, orgId: user.org_id, name: 'shared bucket' })).token;
}

describe('instances sharing Redis (and the database)', () => {
  let a: App;
  let b: App;
  beforeAll(async () => {
    a = await createApp(testConfig({ redisUrl: REDIS_URL }), { db: t.app.db });
    b = await createApp(testConfig({ redisUrl: REDIS_URL }), { db: t.app.db });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  test('a token used on two instances at once is one bucket: exactly 600 of 700 admitted', async () => {
    const token = await freshToken();
    const responses = await Promise.all(
      Array.from({ length: 700 }, (_, i) =>
        (i % 2 ? a : b).fetch(new Request(`${ORIGIN}/api/me`, { headers: { authorization: `Bearer ${token}` } })),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(600);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(100);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(new Set(remaining).size).toBe(600);
  });
});

describe('Redis unreachable', () => {
  test('the service keeps answering, limits each instance on its own, and logs why', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const app = await createApp(testConfig({ redisUrl: 'redis://127.0.0.1:1' }), { db: t.app.db, logger });
    try {
      const token = await freshToken();
      const started = Date.now();
      const first = await app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { authorization: `Bearer ${token}` } }));
      expect(first.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(first.headers.get('x-ratelimit-remaining')).toBe('599');
      const rest = await Promise.all(
        Array.from({ length: 600 }, () =>
          app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { authorization: `Bearer ${token}` } })),
        ),
      );
      expect(rest.filter((r) => r.status === 429)).toHaveLength(1);
      expect(lines.some((l) => l.includes('Redis'))).toBe(true);
    } finally {
      await app.close();
    }
  });
});
