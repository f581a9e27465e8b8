export const API_KEY_STATUSES = ['active', 'revoked', 'expired'] as const;

/** A key's status, derived from its times: revoked, else expired, else active. */
export function apiKeyStatus(
  key: { revokedAt: Date | null; expiresAt: Date | null },
  now = new Date(),
): (typeof API_KEY_STATUSES)[number] {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}
