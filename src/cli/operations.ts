import type { CredentialEpoch } from '../auth/credential-epoch.js';
import { hashPassword } from '../auth/password.js';
import type { Role } from '../auth/principal.js';
import type { Db } from '../db/client.js';
import { revokeKeyRow } from '../schema/keys/api-key.js';
import { operatorContext } from '../schema/core/operator.js';
import { createOrganization as orgOperation } from '../schema/organizations/organization.js';
import * as projectOperations from '../schema/projects/operations.js';
import { UserFields } from '../schema/people/fields.js';
import { validate } from '../schema/core/validate.js';

/** Operator operations shared by the admin and seed commands (and test fixtures). */

/** Creates a user; a field over its limit, or text PostgreSQL cannot store, is a ValidationError naming the field, as on the API. */
export async function createUser(
  db: Db,
  input: { email: string; name: string; username: string; password?: string; locale?: string },
) {
  // The API documents these limits for every user it shows: a user over them is refused here.
  const fields = validate(UserFields, {
    email: input.email.toLowerCase(),
    name: input.name,
    username: input.username,
    locale: input.locale ?? 'en',
  });
  return db.user.create({
    data: {
      ...fields,
      passwordHash: input.password ? await hashPassword(input.password) : null,
    },
  });
}

/** Creates an organization with no member yet (add its owner next), under the API's rules for names and slugs. */
export async function createOrganization(db: Db, input: { name: string; slug: string; isPublic?: boolean }) {
  const data = orgOperation.parse(input);
  return db.organization.create({ data });
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
export async function removeMember(
  db: Db,
  input: { orgId: string; userId: string },
  epoch: CredentialEpoch,
): Promise<boolean> {
  const { count } = await db.membership.deleteMany({ where: input });
  if (count > 0) await epoch.bump();
  return count > 0;
}

/** Revokes an API key of any organization (the schema's revocation); null if there is no such key. */
export function revokeApiKey(db: Db, id: string, epoch: CredentialEpoch) {
  return revokeKeyRow(db, epoch, { id }, { id: true, revokedAt: true });
}

/** Creates a project through the API's operation: the same key and name rules, the same messages. */
export async function createProject(db: Db, input: { orgId: string; name: string; key: string }) {
  return projectOperations.createProject.call(
    operatorContext(db, { orgId: input.orgId }),
    { name: input.name, key: input.key },
    {},
  );
}
