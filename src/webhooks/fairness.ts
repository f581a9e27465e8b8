/**
 * How one instance's delivery worker shares its sends. A pool of WORKER_IN_FLIGHT_MAX sends runs
 * continuously (a slot is refilled as soon as its send ends, never waiting for a batch), and the
 * slots go round robin: to the organization with the fewest sends in flight (ties: the one served
 * least recently), and within it to its endpoint with the fewest. An endpoint has at most
 * ENDPOINT_IN_FLIGHT_MAX sends in flight (one while its circuit is half-open), an organization at
 * most ORG_IN_FLIGHT_MAX: endpoints that never answer hold a few slots for the 10 s timeout,
 * never the pool, and another organization's delivery goes out at the next refill.
 */
export const WORKER_IN_FLIGHT_MAX = 32;
export const ORG_IN_FLIGHT_MAX = 8;
export const ENDPOINT_IN_FLIGHT_MAX = 2;

/** An endpoint with deliveries due, oldest-waiting first as the claim query lists them. */
export interface DueEndpoint {
  webhookId: string;
  orgId: string;
  /** Its circuit is half-open: one probe at a time. */
  halfOpen: boolean;
}

/** Sends in flight in this process, by endpoint and by organization. */
export class InFlight {
  total = 0;
  readonly byEndpoint = new Map<string, number>();
  readonly byOrg = new Map<string, number>();
  /** A counter that grows with each slot given out, and the value at each organization's last one. */
  private turn = 0;
  private readonly servedAt = new Map<string, number>();

  add(webhookId: string, orgId: string, n = 1): void {
    this.total += n;
    bump(this.byEndpoint, webhookId, n);
    bump(this.byOrg, orgId, n);
  }

  remove(webhookId: string, orgId: string): void {
    this.add(webhookId, orgId, -1);
  }

  /** The endpoints and organizations with as many sends in flight as they may have: none of theirs is due for now. */
  full(): { endpoints: string[]; orgs: string[] } {
    const endpoints = [...this.byEndpoint].filter(([, n]) => n >= ENDPOINT_IN_FLIGHT_MAX).map(([id]) => id);
    const orgs = [...this.byOrg].filter(([, n]) => n >= ORG_IN_FLIGHT_MAX).map(([id]) => id);
    return { endpoints, orgs };
  }

  /**
   * How many deliveries to claim for each endpoint to fill `free` slots fairly (see above); an
   * endpoint or organization at its cap gets none.
   */
  plan(due: DueEndpoint[], free: number): Map<string, number> {
    const planned = new Map<string, number>();
    const plannedByOrg = new Map<string, number>();
    const orgs = new Map<string, DueEndpoint[]>();
    for (const endpoint of due) orgs.set(endpoint.orgId, [...(orgs.get(endpoint.orgId) ?? []), endpoint]);
    const orgLoad = (orgId: string) => (this.byOrg.get(orgId) ?? 0) + (plannedByOrg.get(orgId) ?? 0);
    const endpointLoad = (id: string) => (this.byEndpoint.get(id) ?? 0) + (planned.get(id) ?? 0);
    const room = (e: DueEndpoint) => (e.halfOpen ? 1 : ENDPOINT_IN_FLIGHT_MAX) - endpointLoad(e.webhookId);
    for (; free > 0; free--) {
      let best: { orgId: string; endpoint: DueEndpoint } | null = null;
      for (const [orgId, endpoints] of orgs) {
        if (orgLoad(orgId) >= ORG_IN_FLIGHT_MAX) continue;
        const open = endpoints.filter((e) => room(e) > 0);
        if (open.length === 0) continue;
        const endpoint = open.reduce((a, b) => (endpointLoad(b.webhookId) < endpointLoad(a.webhookId) ? b : a));
        if (!best || this.before(orgId, best.orgId, orgLoad)) best = { orgId, endpoint };
      }
      if (!best) break;
      bump(planned, best.endpoint.webhookId, 1);
      bump(plannedByOrg, best.orgId, 1);
      this.servedAt.set(best.orgId, ++this.turn);
    }
    // Remember only the organizations still waiting or sending, so the map stays as small as the queue.
    for (const orgId of this.servedAt.keys())
      if (!orgs.has(orgId) && !this.byOrg.has(orgId)) this.servedAt.delete(orgId);
    return planned;
  }

  /** Whether organization `a` is served before `b`: fewer in flight, else served longer ago. */
  private before(a: string, b: string, load: (orgId: string) => number): boolean {
    const loadA = load(a);
    const loadB = load(b);
    return loadA < loadB || (loadA === loadB && (this.servedAt.get(a) ?? 0) < (this.servedAt.get(b) ?? 0));
  }
}

function bump(map: Map<string, number>, key: string, n: number): void {
  const value = (map.get(key) ?? 0) + n;
  if (value === 0) map.delete(key);
  else map.set(key, value);
}
