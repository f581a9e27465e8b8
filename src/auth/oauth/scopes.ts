/**
 * The scopes an OAuth client may ask for. The spec leaves their names open; these two follow
 * the HTTP method line every API client already understands.
 */
export const SCOPES = {
  read: 'See your organization: its projects, issues and people',
  write: 'Create and change projects, issues and API keys, as you',
} as const;

/**
 * The consent page's words: what a write token may change depends on the person's role, which
 * the page lists for each organization (capabilities.ts), so the sentence promises no more.
 */
export const CONSENT_SCOPES: Record<keyof typeof SCOPES, string> = {
  read: SCOPES.read,
  write: 'Create and change what your role allows, as you (listed for each organization below)',
};

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

/** Asked for nothing: everything, which the consent screen then spells out. */
export const DEFAULT_SCOPE = 'read write';

/** `read write` -> ['read', 'write'], or null when a name is unknown or the list is empty. */
export function parseScope(value: string): Scope[] | null {
  const names = [...new Set(value.split(' ').filter(Boolean))];
  // Own keys only: `in` would also accept what every object inherits (`toString`, `constructor`).
  if (names.length === 0 || !names.every((n): n is Scope => Object.hasOwn(SCOPES, n))) return null;
  return SCOPE_NAMES.filter((n) => names.includes(n));
}
