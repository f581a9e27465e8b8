import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { authenticatePat, PAT_LOOKUP_SQL, type PatLookup, TOUCH_KEY_SQL } from '../src/auth/pat.js';
import { PAT_CACHE_TTL_MS, PatCache } from '../src/auth/pat-cache.js';
import { generatePat, hashToken } from '../src/auth/pat-token.js';
import type { Db } from '../src/db/client.js';
import { DirectSql, registerDirectSql } from '../src/db/direct-sql.js';

// authenticatePat with the clock, cache and epoch in the test's hands (test/pat-auth.test.ts and
// test/pat-cache.test.ts check it through requests on a real database). The mutation group `pat`
// runs this file once per mutant, so the database here is a table in memory answering the two
// statements authenticatePat sends (recognized by their compiled text); starting a database per mutant
// would make the group take hours.

interface KeyRow {
  id: string;
  orgId: string;
  userId: string;
  tokenHash: Buffer;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  role: 'member';
}
const table: KeyRow[] = [];
const db = {} as Db;
registerDirectSql(
  db,
  new DirectSql(
    async (text, values) => {
      if (text === PAT_LOOKUP_SQL)
        return { rows: table.filter((row) => row.tokenHash.equals(values[0] as Buffer)).map((row) => ({ ...row })) };
      if (text !== TOUCH_KEY_SQL) throw new Error(`unexpected statement: ${text}`);
      const row = table.find((r) => r.id === values[1]);
      if (row) row.lastUsedAt = new Date(values[0] as string);
      return { rows: [] };
    },
    { count: 0, timers: new Set() },
  ),
);

const userId = randomUUID();
const orgId = randomUUID();
const otherOrgId = randomUUID();

async function key(expiresAt?: Date) {
  const token = generatePat();
  const row: KeyRow = {
    id: randomUUID(),
    orgId,
    userId,
    tokenHash: Buffer.from(hashToken(token)),
    expiresAt: expiresAt ?? null,
    revokedAt: null,
    lastUsedAt: null,
    role: 'member',
  };
  table.push(row);
  return { key: row, token };
}
const revoke = (id: string) => {
  table.find((row) => row.id === id)!.revokedAt = new Date();
};
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const cached = (): PatLookup & { cache: PatCache } => ({ db, cache: new PatCache(), epoch: 1 });
const uncached = (): PatLookup => ({ db, cache: null });
const lastUsed = async (id: string) => table.find((row) => row.id === id)!.lastUsedAt?.getTime() ?? null;

describe('authenticatePat', () => {
  test('a live key is its owner with the role in its org; other tokens are not its business', async () => {
    const { key: row, token } = await key();
    for (const lookup of [cached(), uncached()]) {
      expect(await authenticatePat(lookup, token, null, new Date())).toEqual({
        kind: 'user',
        userId,
        credential: { kind: 'pat', id: row.id },
        org: { id: orgId, role: 'member' },
        orgBound: true,
      });
    }
    expect(await authenticatePat(uncached(), 'wm_session_x', null, new Date())).toBeNull();
    expect(await authenticatePat(uncached(), 'tok_live_short', null, new Date())).toMatchObject({
      status: 401,
      code: 'token_malformed',
    });
    expect(await authenticatePat(uncached(), generatePat(), null, new Date())).toMatchObject({
      status: 401,
      code: 'token_invalid',
    });
  });

  test('a revoked key is refused', async () => {
    const { key: row, token } = await key();
    revoke(row.id);
    expect(await authenticatePat(uncached(), token, null, new Date())).toMatchObject({
      status: 401,
      code: 'token_revoked',
    });
  });

  test('a cached key ages out after the TTL: a write that announced nothing is seen then', async () => {
    const { key: row, token } = await key();
    const lookup = cached();
    const filled = new Date();
    expect(await authenticatePat(lookup, token, null, filled)).toMatchObject({ credential: { id: row.id } });
    revoke(row.id);
    expect(await authenticatePat(lookup, token, null, at(filled, PAT_CACHE_TTL_MS - 1))).toMatchObject({
      credential: { id: row.id },
    });
    expect(lookup.cache.hits).toBe(1);
    expect(await authenticatePat(lookup, token, null, at(filled, PAT_CACHE_TTL_MS))).toMatchObject({
      status: 401,
      code: 'token_revoked',
    });
  });

  test('a key stops working at the millisecond it expires, from the cache and from the database', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { key: row, token } = await key(expiresAt);
    const lookup = cached();
    expect(await authenticatePat(lookup, token, null, at(expiresAt, -2))).toMatchObject({ credential: { id: row.id } });
    expect(await authenticatePat(lookup, token, null, at(expiresAt, -1))).toMatchObject({ credential: { id: row.id } });
    expect(await authenticatePat(lookup, token, null, expiresAt)).toMatchObject({ status: 401, code: 'token_expired' });
    expect(lookup.cache.hits).toBe(2);
    expect(await authenticatePat(uncached(), token, null, at(expiresAt, -1))).toMatchObject({
      credential: { id: row.id },
    });
    expect(await authenticatePat(uncached(), token, null, expiresAt)).toMatchObject({
      status: 401,
      code: 'token_expired',
    });
  });

  test('X-Org-Id: refused unless it names the key\u2019s org, on the database path and on a hit', async () => {
    const { key: row, token } = await key();
    const now = new Date();
    expect(await authenticatePat(uncached(), token, otherOrgId, now)).toMatchObject({
      status: 403,
      code: 'org_mismatch',
    });
    expect(await authenticatePat(uncached(), token, orgId, now)).toMatchObject({ credential: { id: row.id } });
    const lookup = cached();
    expect(await authenticatePat(lookup, token, otherOrgId, now)).toMatchObject({ status: 403, code: 'org_mismatch' });
    expect(lookup.cache.size).toBe(1); // filled all the same: the key itself is live
    expect(await authenticatePat(lookup, token, orgId, now)).toMatchObject({ credential: { id: row.id } });
    expect(await authenticatePat(lookup, token, otherOrgId, now)).toMatchObject({ status: 403, code: 'org_mismatch' });
    expect(lookup.cache.hits).toBe(2);
  });

  test('the cache is used only under a known epoch, which may arrive as a promise', async () => {
    const { token } = await key();
    const unknown = { db, cache: new PatCache(), epoch: null };
    await authenticatePat(unknown, token, null, new Date());
    await authenticatePat(unknown, token, null, new Date());
    expect([unknown.cache.size, unknown.cache.hits]).toEqual([0, 0]);
    const later = { db, cache: new PatCache(), epoch: Promise.resolve(7) };
    await authenticatePat(later, token, null, new Date());
    await authenticatePat(later, token, null, new Date());
    expect([later.cache.size, later.cache.hits]).toEqual([1, 1]);
    // A request whose epoch is unknown (Redis did not answer) leaves the cache as it is.
    await authenticatePat({ ...later, epoch: null }, token, null, new Date());
    await authenticatePat(later, token, null, new Date());
    expect([later.cache.size, later.cache.hits]).toEqual([1, 2]);
  });

  test('one cache, many keys: each token finds its own key', async () => {
    const lookup = cached();
    const keys = [await key(), await key(), await key()];
    for (let round = 0; round < 2; round++) {
      for (const { key: row, token } of keys) {
        expect(await authenticatePat(lookup, token, null, new Date())).toMatchObject({ credential: { id: row.id } });
      }
    }
    expect([lookup.cache.size, lookup.cache.hits]).toEqual([3, 3]);
  });

  test('the hash the request made already is used, not made again', async () => {
    const { key: row, token } = await key();
    const made: string[] = [];
    const hash = (t: string) => {
      made.push(t);
      return hashToken(t);
    };
    const lookup = { ...cached(), hash };
    expect(await authenticatePat(lookup, token, null, new Date())).toMatchObject({ credential: { id: row.id } });
    expect(made).toEqual([token]);
  });

  test('last use is written at most once a minute, on hits too', async () => {
    const { key: row, token } = await key();
    const lookup = { db, cache: new PatCache(100, 120_000), epoch: 1 }; // entries outlive the minute
    const t0 = new Date(Date.now() + 1_000);
    await authenticatePat(lookup, token, null, t0);
    await expect.poll(() => lastUsed(row.id)).toBe(t0.getTime());
    await authenticatePat(lookup, token, null, at(t0, 59_999));
    await authenticatePat(uncached(), token, null, at(t0, 59_999)); // the row says t0 too
    await new Promise((resolve) => setTimeout(resolve, 20)); // a write, had there been one, is done
    expect(await lastUsed(row.id)).toBe(t0.getTime());
    await authenticatePat(lookup, token, null, at(t0, 60_000)); // a hit
    await expect.poll(() => lastUsed(row.id)).toBe(t0.getTime() + 60_000);
  });
});
