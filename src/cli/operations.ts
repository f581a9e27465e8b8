import type { CredentialEpoch } from '../auth/credential-epoch.js';
import { hashPassword } from '../auth/password.js';
import type { Role } from '../auth/principal.js';
import type { Db } from '../db/client.js';

/** Operator operations shared by the admin and seed commands (and test fixtures). */

export async function createUser(
  db: Db,
  input: { email: string; name: string; username: string; password?: string; locale?: string },
) {
  return db.user.create({
    data: {
      email: input.email.toLowerCase(),
      name: input.name,
      username: input.username,
      locale: input.locale ?? 'en',
      passwordHash: input.password ? await hashPassword(input.password) : null,
    },
  });
}

export async function createOrganization(db: Db, input: { name: string; slug: string; isPublic?: boolean }) {
  return db.organization.create({ data: { name: input.name, slug: input.slug, isPublic: input.isPublic ?? false } });
}

/**
 * Adds a member, or changes their role. A role change is a credential change (their keys act
 * with the new role from the next request): pass the epoch of the running service, bumped after
 * the write (a bump for a new member only makes the caches refill).
 */
export async function addMember(db: Db, input: { orgId: string; userId: string; role: Role }, epoch?: CredentialEpoch) {
  const where = { orgId_userId: { orgId: input.orgId, userId: input.userId } };
  const membership = await db.membership.upsert({ where, create: input, update: { role: input.role } });
  await epoch?.bump();
  return membership;
}

/** Removes a member (their API keys in the organization go with it: cascade); false if there was none. */
export async function removeMember(db: Db, input: { orgId: string; userId: string }, epoch: CredentialEpoch): Promise<boolean> {
  const { count } = await db.membership.deleteMany({ where: input });
  if (count > 0) await epoch.bump();
  return count > 0;
}

/** Revokes an API key (idempotent: a revoked key keeps its first revocation time); null if there is no such key. */
export async function revokeApiKey(db: Db, id: string, epoch: CredentialEpoch) {
  const key = await db.apiKey.findUnique({ where: { id }, select: { revokedAt: true } });
  if (!key) return null;
  const revoked = await db.apiKey.update({ where: { id }, data: { revokedAt: key.revokedAt ?? new Date() }, select: { id: true, revokedAt: true } });
  await epoch.bump();
  return revoked;
}

export async function createProject(db: Db, input: { orgId: string; name: string; key: string }) {
  return db.project.create({ data: { orgId: input.orgId, name: input.name, key: input.key.toUpperCase() } });
}
