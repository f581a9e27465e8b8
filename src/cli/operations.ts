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

export async function addMember(db: Db, input: { orgId: string; userId: string; role: Role }) {
  return db.membership.upsert({
    where: { orgId_userId: { orgId: input.orgId, userId: input.userId } },
    create: input,
    update: { role: input.role },
  });
}

export async function createProject(db: Db, input: { orgId: string; name: string; key: string }) {
  return db.project.create({ data: { orgId: input.orgId, name: input.name, key: input.key.toUpperCase() } });
}
