import { ROUTES } from '../../rest/routes/index.js';
import { authorize } from '../../schema/core/access.js';
import type { Role, UserPrincipal } from '../principal.js';
import type { Scope } from './scopes.js';

export interface Capability {
  /** The route's tag: Projects, Issues... */
  area: string;
  /** The route summaries, in the API's order. */
  can: string[];
}

/**
 * What a token of this consent could do: every operation whose own access rule (role, scope,
 * credential kind) admits an OAuth token with these scopes for this role. Computed from the same
 * rules the operations check (src/schema/core/access.ts), so the consent page promises exactly
 * what the person's role allows, no more.
 */
export function capabilities(role: Role, scopes: Scope[]): Capability[] {
  const token: UserPrincipal = { kind: 'user', userId: '', credential: { kind: 'oauth', id: '' }, org: { id: '', role }, orgBound: true, scopes };
  const areas = new Map<string, string[]>();
  for (const route of ROUTES) {
    if (!route.operation) continue;
    try {
      authorize(token, route.operation.kind, route.operation.access);
    } catch {
      continue;
    }
    areas.set(route.tag, [...(areas.get(route.tag) ?? []), route.summary]);
  }
  return [...areas].map(([area, can]) => ({ area, can }));
}
