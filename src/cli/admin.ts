// npm run admin -- <command> [options]: operator commands against DATABASE_URL.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { localEpoch, RedisEpoch, type CredentialEpoch } from '../auth/credential-epoch.js';
import { mintApiKey } from '../auth/api-keys.js';
import { createPasswordLink } from '../auth/password-setup.js';
import { ROLES, type Role } from '../auth/principal.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { BackupError, backupEmbedded, restoreEmbedded } from '../db/backup.js';
import type { Db } from '../db/client.js';
import { AppError } from '../schema/errors.js';
import { isUuid } from '../schema/uuid.js';
import { createMailer } from '../mail/mailer.js';
import { passwordLinkMail } from '../mail/messages.js';
import { withDatabase } from './open.js';
import { addMember, createOrganization, createProject, createUser, removeMember, revokeApiKey } from './operations.js';

const HELP = `Usage: npm run admin -- <command> [options]

Commands:
  create-user     --email E --name N --username U [--password P]
                  without --password, prints a one-time link (24 hours) where the user sets it
  password-link   --user USER                               a new one-time link to set the password
  create-org      --name N --slug S [--public]
  add-member      --org ORG --user USER --role ${ROLES.join('|')}   (also changes a role)
  remove-member   --org ORG --user USER                     (deletes their API keys in ORG)
  create-project  --org ORG --name N --key KEY
  create-key      --org ORG --user USER --name N [--expires-at ISO-8601]
                  prints the token once; only its hash is stored
  revoke-key      --id KEY_ID
  list            organizations, members and projects
  backup FILE     writes the embedded database to FILE (stop the service first)
  restore FILE [--force] [--max-bytes BYTES]
                  loads a backup into the embedded database's directory (stop the service
                  first); --force moves the database there aside instead of refusing;
                  a backup unpacking to more than --max-bytes (default 1 GiB) is refused

ORG is an organization id or slug; USER a user id, username or e-mail.
DATABASE_URL selects the database, as for the server (default: the embedded ./data);
BASE_URL the address in password links (set it as for the service); with SMTP_URL set,
password links are also mailed to the user.
While the service runs on the embedded database, only it may open the database: invite
people from the team page instead (an invitation link), or stop the service first.
With REDIS_URL set, revoke-key, remove-member and a role change also tell the running
instances (through the credential epoch in Redis) to drop the API keys they have cached.`;

/** A usage mistake: one line, exit status 2. */
function usage(message: string): never {
  process.stderr.write(`${message} (npm run admin -- --help lists the commands and their options)\n`);
  process.exit(2);
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  email: { type: 'string' },
  name: { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  slug: { type: 'string' },
  public: { type: 'boolean' },
  org: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  key: { type: 'string' },
  id: { type: 'string' },
  'expires-at': { type: 'string' },
  force: { type: 'boolean' },
  'max-bytes': { type: 'string' },
} as const;

const { positionals, values } = (() => {
  try {
    return parseArgs({ allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // Node's messages name the option and what is wrong with it ("Option '--id <value>' argument missing").
    return usage((error as Error).message);
  }
})();

class UsageError extends Error {}

function need(name: keyof typeof values): string {
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
  const mailer = createMailer(config.mail, (fields, message) => process.stderr.write(`warning: ${message} ${JSON.stringify(fields)}\n`));
  const mailed = mailer ? await mailer.send(passwordLinkMail(user.email, link)) : false;
  mailer?.close();
  return { password_link: link.url, password_link_expires_at: link.expiresAt, password_link_mailed: mailed };
}

function role(): Role {
  const value = need('role');
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

const commands: Record<string, (db: Db, epoch: CredentialEpoch, config: Config) => Promise<unknown>> = {
  'create-user': async (db, _epoch, config) => {
    const user = await createUser(db, { email: need('email'), name: need('name'), username: need('username'), password: values.password });
    if (values.password) return user;
    // An account nobody can sign in to is useless: without a password, a link to choose one.
    return { ...user, ...(await passwordLink(db, config, user)) };
  },
  'password-link': async (db, _epoch, config) => {
    const user = await findUser(db, need('user'));
    return { user_id: user.id, email: user.email, ...(await passwordLink(db, config, user)) };
  },
  'create-org': (db) => createOrganization(db, { name: need('name'), slug: need('slug'), isPublic: values.public }),
  'add-member': async (db, epoch) => {
    const [org, user] = [await findOrg(db, need('org')), await findUser(db, need('user'))];
    return addMember(db, { orgId: org.id, userId: user.id, role: role() }, epoch);
  },
  'remove-member': async (db, epoch) => {
    const [org, user] = [await findOrg(db, need('org')), await findUser(db, need('user'))];
    if (!(await removeMember(db, { orgId: org.id, userId: user.id }, epoch))) throw new UsageError(`${user.username} is not a member of ${org.slug}`);
    return { removed: { org: org.slug, user: user.username } };
  },
  'create-project': async (db) => createProject(db, { orgId: (await findOrg(db, need('org'))).id, name: need('name'), key: need('key') }),
  'create-key': async (db) => {
    const [org, user] = [await findOrg(db, need('org')), await findUser(db, need('user'))];
    const expiresAt = values['expires-at'] ? new Date(values['expires-at']) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be an ISO 8601 date');
    const member = await db.membership.findUnique({ where: { orgId_userId: { orgId: org.id, userId: user.id } } });
    if (!member) throw new UsageError(`${user.username} is not a member of ${org.slug}`);
    const { key, token } = await mintApiKey(db, { userId: user.id, orgId: org.id, name: need('name'), expiresAt });
    return { id: key.id, name: key.name, org_id: key.orgId, user_id: key.userId, expires_at: key.expiresAt, token };
  },
  'revoke-key': async (db, epoch) => {
    const id = need('id');
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
};

const command = positionals[0];
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
if (!command) {
  process.stderr.write(`${HELP}\n`);
  process.exit(2);
}

/** backup and restore work on the data directory itself, not through an open database. */
async function backupCommand(name: 'backup' | 'restore'): Promise<number> {
  const file = positionals[1];
  if (!file) usage(`${name} needs a file: npm run admin -- ${name} FILE`);
  const maxBytes = values['max-bytes'] === undefined ? undefined : Number(values['max-bytes']);
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes > 0)) {
    usage('--max-bytes must be a whole number of bytes above 0');
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  try {
    const result =
      name === 'backup'
        ? await backupEmbedded(config.databaseUrl, file)
        : await restoreEmbedded(config.databaseUrl, file, { force: values.force, maxBytes });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}
if (command === 'backup' || command === 'restore') process.exit(await backupCommand(command));

const run = commands[command];
if (!run) usage(`Unknown command ${command}.`);
/**
 * The running service's credential epoch: in Redis when REDIS_URL is set. Without Redis the
 * service caches keys only where this command cannot write beside it (the embedded database
 * is locked by the server) or where PAT_CACHE=on was chosen knowingly, so there is nothing to tell.
 */
function credentialEpoch(redisUrl: string | undefined): { epoch: CredentialEpoch; close(): void } {
  if (!redisUrl) return { epoch: localEpoch, close() {} };
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  const epoch = new RedisEpoch(redis, {
    bumpTimeoutMs: 5_000,
    onBumpError: (error) =>
      process.stderr.write(
        `warning: the change is saved, but the running instances could not be told through Redis (${error.message}); ` +
          'they may accept the affected API keys for up to 60 s (the cache TTL).\n',
      ),
  });
  return { epoch, close: () => redis.disconnect() };
}

/** What to do instead, for the commands people run while the service is up. */
const WHILE_RUNNING: Record<string, (baseUrl: string) => string> = {
  'create-user': (base) =>
    `To add a person now, create an invitation link on your organization's team page (${base}/orgs/<slug>/team, "Invite someone"): they create their own account from it and join.`,
  'add-member': (base) => `To add a member now, create an invitation link on the team page (${base}/orgs/<slug>/team), or change a member's role there.`,
};

const code = await withDatabase(async (db, config) => {
  const { epoch, close } = credentialEpoch(config.redisUrl);
  try {
    const result = await run(db.prisma, epoch, config);
    process.stdout.write(`${JSON.stringify(result, (k, v) => (k === 'passwordHash' || k === 'tokenHash' ? undefined : v), 2)}\n`);
    return 0;
  } catch (error) {
    // A value the API would refuse is refused here too, with the API's message (ValidationError, ConflictError...).
    if (!(error instanceof UsageError) && !(error instanceof AppError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  } finally {
    close();
  }
}, { whileRunning: WHILE_RUNNING[command] });
process.exit(code);
