import type { Role } from '../generated/prisma/enums.js';

export type { Role };

/** Roles from least to most powerful; a role can do everything the roles before it can. */
export const ROLES: readonly Role[] = ['viewer', 'member', 'manager', 'admin', 'owner'];

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

type CredentialKind = 'pat' | 'oauth' | 'session';

/** A signed-in user acting through one credential. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  /** `clientId`: the OAuth client, for OAuth tokens (whose `id` is the grant). */
  credential: { kind: CredentialKind; id: string; clientId?: string };
  /** The organization this request acts in, with the user's current role there. */
  org: { id: string; role: Role } | null;
  /** PATs and OAuth tokens are bound to one organization and never see another. */
  orgBound: boolean;
  /** OAuth tokens carry scopes; other credentials can do whatever the role allows (undefined). */
  scopes?: string[];
  /** A session whose expiry this request pushed forward: its cookie is sent again. */
  sessionRefreshedUntil?: Date | null;
}

/**
 * A trusted operator at the server's console (the admin CLI, the seed): no credential, every
 * role, never rate limited, acting in the organization it names. It still obeys every input
 * rule, because it calls the same operations.
 */
interface OperatorPrincipal {
  kind: 'operator';
  org: { id: string; role: 'owner' } | null;
}

export type Principal = { kind: 'anonymous' } | UserPrincipal | OperatorPrincipal;

export const anonymous: Principal = { kind: 'anonymous' };
