import type { CredentialEpoch } from '../auth/credential-epoch.js';
import { mintApiKey } from '../auth/api-keys.js';
import { createPasswordLink } from '../auth/password-setup.js';
import { ROLES, type Role } from '../auth/principal.js';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { vacuumTables } from '../db/vacuum.js';
import { Prisma } from '../generated/prisma/client.js';
import { createMailer } from '../mail/mailer.js';
import { passwordLinkMail } from '../mail/messages.js';
import { AppError } from '../schema/core/errors.js';
import { isUuid } from '../schema/core/uuid.js';
import { addMember, createOrganization, createProject, createUser, removeMember, revokeApiKey } from './operations.js';
import { UsageError } from './usage-error.js';

/**
 * The admin commands that work through an open database (src/cli/admin.ts parses their options;
 * src/cli/admin-socket.ts runs them inside the service when it holds the embedded database).
 */

/** The options of a command, as parsed from its command line. */
export interface AdminValues {
  email?: string;
  name?: string;
  username?: string;
  password?: string;
  slug?: string;
  public?: boolean;
  all?: boolean;
  org?: string;
  user?: string;
  role?: string;
  key?: string;
  id?: string;
  'expires-at'?: string;
}

function need(values: AdminValues, name: keyof AdminValues): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function findOrg(db: Db, ref: string) {
  const org = await db.organization.findFirst({ where: isUuid(ref) ? { id: ref } : { slug: ref } });
  if (!org) throw new UsageError(`no organization ${ref}`);
  return org;
}

async function findUser(db: Db, ref: string) {
  const user = await db.user.findFirst({
    where: isUuid(ref) ? { id: ref } : ref.includes('@') ? { email: ref.toLowerCase() } : { username: ref },
  });
  if (!user) throw new UsageError(`no user ${ref}`);
  return user;
}

/** A new password link, mailed to the user when the service sends mail (SMTP_URL). */
async function passwordLink(db: Db, config: Config, user: { id: string; email: string }) {
  const link = await createPasswordLink(db, user.id, config.baseUrl);
  const mailer = createMailer(config.mail, (fields, message) =>
    process.stderr.write(`warning: ${message} ${JSON.stringify(fields)}\n`),
  );
  const mailed = mailer ? await mailer.send(passwordLinkMail(user.email, link)) : false;
  mailer?.close();
  return { password_link: link.url, password_link_expires_at: link.expiresAt, password_link_mailed: mailed };
}

function role(values: AdminValues): Role {
  const value = need(values, 'role');
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

/** The commands that work through an open database, by name. */
export const ADMIN_COMMANDS: Record<
  string,
  (db: Db, epoch: CredentialEpoch, config: Config, values: AdminValues) => Promise<unknown>
> = {
  'create-user': async (db, _epoch, config, values) => {
    const user = await createUser(db, {
      email: need(values, 'email'),
      name: need(values, 'name'),
      username: need(values, 'username'),
      password: values.password,
    });
    if (values.password) return user;
    // An account nobody can sign in to is useless: without a password, a link to choose one.
    return { ...user, ...(await passwordLink(db, config, user)) };
  },
  'password-link': async (db, _epoch, config, values) => {
    const user = await findUser(db, need(values, 'user'));
    return { user_id: user.id, email: user.email, ...(await passwordLink(db, config, user)) };
  },
  'create-org': (db, _epoch, _config, values) =>
    createOrganization(db, { name: need(values, 'name'), slug: need(values, 'slug'), isPublic: values.public }),
  'add-member': async (db, epoch, _config, values) => {
    const [org, user] = [await findOrg(db, need(values, 'org')), await findUser(db, need(values, 'user'))];
    return addMember(db, { orgId: org.id, userId: user.id, role: role(values) }, epoch);
  },
  'remove-member': async (db, epoch, _config, values) => {
    const [org, user] = [await findOrg(db, need(values, 'org')), await findUser(db, need(values, 'user'))];
    if (!(await removeMember(db, { orgId: org.id, userId: user.id }, epoch)))
      throw new UsageError(`${user.username} is not a member of ${org.slug}`);
    return { removed: { org: org.slug, user: user.username } };
  },
  'create-project': async (db, _epoch, _config, values) =>
    createProject(db, {
      orgId: (await findOrg(db, need(values, 'org'))).id,
      name: need(values, 'name'),
      key: need(values, 'key'),
    }),
  'create-key': async (db, _epoch, _config, values) => {
    const [org, user] = [await findOrg(db, need(values, 'org')), await findUser(db, need(values, 'user'))];
    const expiresAt = values['expires-at'] ? new Date(values['expires-at']) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be an ISO 8601 date');
    const member = await db.membership.findUnique({ where: { orgId_userId: { orgId: org.id, userId: user.id } } });
    if (!member) throw new UsageError(`${user.username} is not a member of ${org.slug}`);
    const { key, token } = await mintApiKey(db, {
      userId: user.id,
      orgId: org.id,
      name: need(values, 'name'),
      expiresAt,
    });
    return { id: key.id, name: key.name, org_id: key.orgId, user_id: key.userId, expires_at: key.expiresAt, token };
  },
  'revoke-key': async (db, epoch, _config, values) => {
    const id = need(values, 'id');
    const revoked = isUuid(id) ? await revokeApiKey(db, id, epoch) : null;
    if (!revoked) throw new UsageError(`no API key ${id}`);
    return revoked;
  },
  list: (db) =>
    db.organization.findMany({
      orderBy: { slug: 'asc' },
      select: {
        id: true,
        slug: true,
        name: true,
        memberships: { select: { role: true, user: { select: { username: true, email: true } } } },
        projects: { select: { id: true, key: true, name: true } },
      },
    }),
  vacuum: async (db, _epoch, _config, values) => ({
    vacuumed: (await vacuumTables(db, { all: values.all === true })).map((t) => ({
      table: t.table,
      live_rows: t.live,
      dead_rows: t.dead,
      dead_rows_after: t.deadAfter,
    })),
  }),
};

/** What a command prints and its exit status, wherever it ran. */
export interface CommandOutcome {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/**
 * Runs one command: its result as JSON on stdout (never a hash), or a refusal the API would make
 * too (a UsageError, or the operation's own error and message) on stderr with status 2.
 */
export async function runAdminCommand(
  name: string,
  values: AdminValues,
  db: Db,
  epoch: CredentialEpoch,
  config: Config,
): Promise<CommandOutcome> {
  const run = ADMIN_COMMANDS[name];
  if (!run) return { code: 2, stdout: '', stderr: `Unknown command ${name}.\n` };
  try {
    const result = await run(db, epoch, config, values);
    return {
      code: 0,
      stdout: `${JSON.stringify(result, (k, v) => (k === 'passwordHash' || k === 'tokenHash' ? undefined : v), 2)}\n`,
      stderr: '',
    };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      // The driver adapter names the unique constraint's fields in meta (…constraint.fields).
      const fields = /"fields":\[([^\]]*)\]/
        .exec(JSON.stringify(error.meta ?? {}))?.[1]
        ?.replace(/"/g, '')
        .split(',')
        .join(' and ');
      return { code: 2, stdout: '', stderr: `Refused: that ${fields || 'value'} is already taken.\n` };
    }
    if (!(error instanceof UsageError) && !(error instanceof AppError)) throw error;
    return { code: 2, stdout: '', stderr: `${error.message}\n` };
  }
}
