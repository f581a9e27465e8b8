import { describe, expect, test, vi } from 'vitest';
import type { Db } from '../src/db/client.js';
import { DirectSql, registerDirectSql } from '../src/db/direct-sql.js';
import { recordCircuit } from '../src/webhooks/circuit.js';
import { ENDPOINT_IN_FLIGHT_MAX, InFlight, ORG_IN_FLIGHT_MAX, type DueEndpoint } from '../src/webhooks/fairness.js';

// Webhook delivery's sharing rules one module at a time, without an app or a database, so that
// mutation testing (stryker/fair-delivery.config.mjs) judges each change to them in milliseconds.
// The same rules through the whole stack: test/webhooks-fairness.test.ts and webhooks.test.ts.

const endpoint = (webhookId: string, orgId: string, halfOpen = false): DueEndpoint => ({ webhookId, orgId, halfOpen });
const entries = (plan: Map<string, number>) => Object.fromEntries([...plan].sort(([a], [b]) => a.localeCompare(b)));

describe('InFlight counts', () => {
  test('add and remove count by endpoint, by organization and in all; a count back at zero is dropped', () => {
    const inFlight = new InFlight();
    inFlight.add('w1', 'o1');
    inFlight.add('w1', 'o1');
    inFlight.add('w2', 'o1', 3);
    expect(inFlight.total).toBe(5);
    expect(inFlight.byEndpoint.get('w1')).toBe(2);
    expect(inFlight.byEndpoint.get('w2')).toBe(3);
    expect(inFlight.byOrg.get('o1')).toBe(5);
    inFlight.remove('w1', 'o1');
    inFlight.remove('w1', 'o1');
    expect(inFlight.total).toBe(3);
    expect(inFlight.byEndpoint.has('w1')).toBe(false);
    expect(inFlight.byOrg.get('o1')).toBe(3);
  });
});

describe('InFlight.full', () => {
  test('names the endpoints at ENDPOINT_IN_FLIGHT_MAX and the organizations at ORG_IN_FLIGHT_MAX, no others', () => {
    const inFlight = new InFlight();
    expect(inFlight.full()).toEqual({ endpoints: [], orgs: [] });
    inFlight.add('w1', 'o1', ENDPOINT_IN_FLIGHT_MAX);
    inFlight.add('w2', 'o1', ENDPOINT_IN_FLIGHT_MAX - 1);
    inFlight.add('w3', 'o2', ENDPOINT_IN_FLIGHT_MAX - 1);
    expect(inFlight.full()).toEqual({ endpoints: ['w1'], orgs: [] });
    for (let i = 0; inFlight.byOrg.get('o1')! < ORG_IN_FLIGHT_MAX; i++) inFlight.add(`x${i}`, 'o1');
    expect(inFlight.full().orgs).toEqual(['o1']);
    inFlight.remove('w1', 'o1');
    expect(inFlight.full()).toEqual({ endpoints: [], orgs: [] });
  });
});

describe('InFlight.plan', () => {
  test('nothing due, or no free slot: nothing planned', () => {
    const inFlight = new InFlight();
    expect(inFlight.plan([], 5).size).toBe(0);
    expect(inFlight.plan([endpoint('w1', 'o1')], 0).size).toBe(0);
  });

  test('slots go round robin across organizations, however many endpoints each has', () => {
    const inFlight = new InFlight();
    const due = ['a1', 'a2', 'a3', 'a4'].map((id) => endpoint(id, 'A')).concat(endpoint('b1', 'B'));
    expect(entries(inFlight.plan(due, 4))).toEqual({ a1: 1, a2: 1, b1: 2 });
  });

  test('an endpoint has at most ENDPOINT_IN_FLIGHT_MAX sends, counting those in flight; half-open: one', () => {
    const inFlight = new InFlight();
    expect(entries(inFlight.plan([endpoint('w1', 'o1')], 10))).toEqual({ w1: ENDPOINT_IN_FLIGHT_MAX });
    inFlight.add('w1', 'o1');
    expect(entries(inFlight.plan([endpoint('w1', 'o1')], 10))).toEqual({ w1: ENDPOINT_IN_FLIGHT_MAX - 1 });
    inFlight.add('w1', 'o1', ENDPOINT_IN_FLIGHT_MAX - 1);
    expect(inFlight.plan([endpoint('w1', 'o1')], 10).size).toBe(0);
    const probing = new InFlight();
    expect(entries(probing.plan([endpoint('w1', 'o1', true)], 10))).toEqual({ w1: 1 });
    probing.add('w1', 'o1');
    expect(probing.plan([endpoint('w1', 'o1', true)], 10).size).toBe(0);
  });

  test('an organization has at most ORG_IN_FLIGHT_MAX sends, counting those in flight', () => {
    const many = Array.from({ length: 10 }, (_, i) => endpoint(`w${i}`, 'o1'));
    const inFlight = new InFlight();
    const plan = inFlight.plan(many, 32);
    expect([...plan.values()].reduce((a, b) => a + b, 0)).toBe(ORG_IN_FLIGHT_MAX);
    // One endpoint each before any gets a second.
    expect([...plan.values()].every((n) => n === 1)).toBe(true);
    const busy = new InFlight();
    busy.add('other', 'o1', ORG_IN_FLIGHT_MAX - 1);
    expect([...busy.plan(many, 32).values()]).toEqual([1]);
  });

  test('the organization with fewer sends in flight goes first, even if served more recently', () => {
    const inFlight = new InFlight();
    const due = [endpoint('a1', 'A'), endpoint('b1', 'B')];
    inFlight.plan([endpoint('b1', 'B')], 1);
    // A's sends in flight go to an endpoint with nothing due: a1 has room, A is just busier.
    inFlight.add('a0', 'A', 2);
    inFlight.add('b1', 'B', 1);
    expect(entries(inFlight.plan(due, 1))).toEqual({ b1: 1 });
    const reversed = new InFlight();
    reversed.add('b1', 'B', 1);
    expect(entries(reversed.plan(due, 1))).toEqual({ a1: 1 });
    // The busier organization waits even when it was served longer ago.
    const waited = new InFlight();
    waited.plan([endpoint('a1', 'A')], 1);
    waited.add('b0', 'B', 2);
    expect(entries(waited.plan(due, 1))).toEqual({ a1: 1 });
  });

  test('ties go to the organization served least recently', () => {
    const inFlight = new InFlight();
    const due = [endpoint('a1', 'A'), endpoint('b1', 'B'), endpoint('c1', 'C')];
    const order = Array.from({ length: 6 }, () => [...inFlight.plan(due, 1).keys()][0]);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a1', 'b1', 'c1']);
    // One served in a plan alone is last in the next one.
    const fresh = new InFlight();
    fresh.plan([endpoint('a1', 'A')], 1);
    expect([...fresh.plan([endpoint('a1', 'A'), endpoint('b1', 'B')], 1).keys()]).toEqual(['b1']);
  });

  test('within an organization, its endpoint with the fewest sends in flight', () => {
    const inFlight = new InFlight();
    inFlight.add('w1', 'o1');
    expect(entries(inFlight.plan([endpoint('w1', 'o1'), endpoint('w2', 'o1')], 1))).toEqual({ w2: 1 });
    expect(entries(inFlight.plan([endpoint('w1', 'o1'), endpoint('w2', 'o1')], 2))).toEqual({ w1: 1, w2: 1 });
    const level = new InFlight();
    expect(entries(level.plan([endpoint('w1', 'o1'), endpoint('w2', 'o1')], 1))).toEqual({ w1: 1 });
  });

  test('it remembers only the organizations still waiting or sending', () => {
    const inFlight = new InFlight();
    inFlight.plan([endpoint('a1', 'A'), endpoint('b1', 'B')], 2);
    inFlight.add('b1', 'B');
    inFlight.plan([endpoint('c1', 'C')], 1);
    expect([...inFlight['servedAt'].keys()].sort()).toEqual(['B', 'C']);
    // A remembered organization keeps its turn: B, served already, goes after D, never served.
    inFlight.remove('b1', 'B');
    expect([...inFlight.plan([endpoint('b1', 'B'), endpoint('d1', 'D')], 1).keys()]).toEqual(['d1']);
  });
});

describe('recordCircuit', () => {
  /** A client whose DirectSql statements are recorded, not sent. */
  function fakeDb() {
    const db = { webhook: { updateMany: vi.fn(async () => ({ count: 1 })) } };
    const run = vi.fn(async (_text: string, _values: unknown[]) => ({ rows: [] }));
    registerDirectSql(db as unknown as Db, new DirectSql(run, { count: 0 }));
    return { db, run };
  }

  test('a final answer (2xx, 4xx but 408 and 429) closes the circuit, writing only if it was not', async () => {
    for (const status of [200, 204, 400, 404, 410]) {
      const { db, run } = fakeDb();
      await recordCircuit(db as unknown as Db, 'w1', status);
      expect(db.webhook.updateMany).toHaveBeenCalledWith({
        where: { id: 'w1', OR: [{ consecutiveFailures: { gt: 0 } }, { circuitOpenUntil: { not: null } }] },
        data: { consecutiveFailures: 0, circuitOpenUntil: null },
      });
      expect(run).not.toHaveBeenCalled();
    }
  });

  test('no answer, a 5xx, 408 or 429 counts a failure; the fifth opens the circuit for 30 s, doubling to an hour', async () => {
    for (const status of [null, 500, 503, 408, 429]) {
      const { db, run } = fakeDb();
      await recordCircuit(db as unknown as Db, 'w1', status);
      expect(run).toHaveBeenCalledTimes(1);
      expect(run.mock.calls[0]).toEqual([expect.stringContaining('"consecutive_failures" + 1'), ['w1']]);
      expect(run.mock.calls[0]![0]).toContain(
        'when "consecutive_failures" + 1 >= 5 then now() + make_interval(secs => least(3600, 30 * power(2, "consecutive_failures" + 1 - 5)))',
      );
      expect(db.webhook.updateMany).not.toHaveBeenCalled();
    }
  });
});
