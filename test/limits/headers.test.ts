import { describe, expect, test } from 'vitest';
import { rateLimitHeaders, retryAfter } from '../../src/limits/headers.js';
import { GLOBAL_POLICY, ROUTE_POLICIES, type Policy } from '../../src/limits/policy.js';
import type { Decision } from '../../src/limits/store.js';

const d = (allowed: boolean, limit: number, remaining: number, resetSeconds: number): Decision => ({
  allowed,
  limit,
  remaining,
  resetSeconds,
});

describe('rateLimitHeaders', () => {
  test('reports the bucket with the fewest remaining, and lists every bucket in RateLimit-Policy', () => {
    const headers = rateLimitHeaders([
      { policy: GLOBAL_POLICY, decision: d(true, 600, 590, 55) },
      { policy: ROUTE_POLICIES.search, decision: d(true, 30, 12, 34) },
    ]);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '30',
      'X-RateLimit-Remaining': '12',
      'X-RateLimit-Reset': '34',
      'RateLimit-Policy': '"global";q=600;w=60, "search";q=30;w=60',
      RateLimit: '"search";r=12;t=34',
    });
  });

  test('the tightest bucket is found wherever it is listed', () => {
    const headers = rateLimitHeaders([
      { policy: ROUTE_POLICIES.search, decision: d(true, 30, 25, 10) },
      { policy: GLOBAL_POLICY, decision: d(true, 600, 3, 7) },
    ]);
    expect(headers.RateLimit).toBe('"global";r=3;t=7');
    expect(headers['X-RateLimit-Limit']).toBe('600');
  });

  test('ties on remaining go to the smaller limit', () => {
    const headers = rateLimitHeaders([
      { policy: GLOBAL_POLICY, decision: d(false, 600, 0, 20) },
      { policy: ROUTE_POLICIES.apiKeyCreate, decision: d(false, 10, 0, 3000) },
    ]);
    expect(headers.RateLimit).toBe('"api-keys.create";r=0;t=3000');
    expect(headers['RateLimit-Policy']).toBe('"global";q=600;w=60, "api-keys.create";q=10;w=3600');
  });

  test('names are emitted as valid structured-field strings', () => {
    const odd: Policy = { name: 'a"b\\c', limit: 1, windowMs: 1000 };
    expect(rateLimitHeaders([{ policy: odd, decision: d(true, 1, 0, 1) }]).RateLimit).toBe('"a\\"b\\\\c";r=0;t=1');
  });

  test('no buckets, no headers', () => {
    expect(rateLimitHeaders([])).toEqual({});
  });
});

describe('retryAfter', () => {
  test('waits for the slowest refusing bucket, ignoring buckets that had room', () => {
    expect(
      retryAfter([
        { policy: GLOBAL_POLICY, decision: d(false, 600, 0, 12) },
        { policy: ROUTE_POLICIES.oauthRegister, decision: d(false, 5, 0, 1800) },
        { policy: ROUTE_POLICIES.search, decision: d(false, 30, 4, 59) },
      ]),
    ).toBe('1800');
    expect(
      retryAfter([
        { policy: GLOBAL_POLICY, decision: d(false, 600, 0, 12) },
        { policy: ROUTE_POLICIES.search, decision: d(false, 30, 4, 59) },
      ]),
    ).toBe('12');
  });
});
