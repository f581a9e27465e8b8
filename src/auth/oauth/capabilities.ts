import { authorize, type Access, type OperationKind } from '../../schema/core/access.js';
import type { Role, UserPrincipal } from '../principal.js';
import type { Scope } from './scopes.js';

export interface Capability {
  /** The route's tag: Projects, Issues... */
  area: string;
  /** The route summaries, in the API's order. */
  can: string[];
}

/**
 * An operation as people read it: the API's area and a one-line summary. The app hands over the
 * REST route declarations (src/rest/routes), which give every operation its area and summary;
 * the OAuth server takes them as given and imports no surface.
 */
export interface DescribedOperation {
  tag: string;
  summary: string;
  /** Absent for public documents, which no token is needed for. */
  operation?: { kind: OperationKind; access: Access };
}

/**
 * What a token of this consent could do: every operation whose own access rule (role, scope,
 * credential kind) admits an OAuth token with these scopes for this role. Computed from the same
 * rules the operations check (src/schema/core/access.ts), so the consent page promises exactly
 * what the person's role allows, no more.
 */
export function capabilities(operations: readonly DescribedOperation[], role: Role, scopes: Scope[]): Capability[] {
  const token: UserPrincipal = {
    kind: 'user',
    userId: '',
    credential: { kind: 'oauth', id: '' },
    org: { id: '', role },
    orgBound: true,
    scopes,
  };
  const areas = new Map<string, string[]>();
  for (const route of operations) {
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
