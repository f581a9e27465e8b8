// npm run admin -- <command> [options]: operator commands against DATABASE_URL.
import { parseArgs } from 'node:util';
import { localEpoch, RedisEpoch, type CredentialEpoch } from '../auth/credential-epoch.js';
import { connectRedis } from '../redis/connect.js';
import { ROLES } from '../auth/principal.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { BackupError, backupEmbedded, restoreEmbedded } from '../db/backup.js';
import { ADMIN_COMMANDS, runAdminCommand, type CommandOutcome } from './admin-commands.js';
import { callAdminSocket } from './admin-socket.js';
import { withDatabase } from './open.js';

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
  vacuum [--all]  VACUUM (ANALYZE) of the tables with many dead rows (--all: of every table);
                  the service does it every VACUUM_INTERVAL_MINUTES on the embedded database
  backup FILE     writes the embedded database to FILE (stop the service first)
  restore FILE [--force] [--max-bytes BYTES]
                  loads a backup into the embedded database's directory (stop the service
                  first); --force moves the database there aside instead of refusing;
                  a backup unpacking to more than --max-bytes (default 1 GiB) is refused

ORG is an organization id or slug; USER a user id, username or e-mail.
DATABASE_URL selects the database, as for the server (default: the embedded ./data);
BASE_URL the address in password links (set it as for the service); with SMTP_URL set,
password links are also mailed to the user.
While the service runs on the embedded database, which only it may open, the commands
(not backup and restore) run inside it, through its admin socket (a Unix socket in a
directory of the service's user only).
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
  all: { type: 'boolean' },
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

if (!Object.hasOwn(ADMIN_COMMANDS, command)) usage(`Unknown command ${command}.`);

/** A result as the command prints it. */
function print(outcome: CommandOutcome): number {
  process.stdout.write(outcome.stdout);
  process.stderr.write(outcome.stderr);
  return outcome.code;
}

// The service running on the embedded database holds it: the command runs inside the service.
const dataDir = embeddedDataDir();
const inService = dataDir ? await callAdminSocket(dataDir, command, values) : null;
if (inService) process.exit(print(inService));

/** The directory of the embedded database DATABASE_URL names, or null (PostgreSQL, memory, a configuration mistake reported later). */
function embeddedDataDir(): string | null {
  try {
    const url = loadConfig().databaseUrl;
    return url.startsWith('file:') ? url.slice('file:'.length) : null;
  } catch {
    return null;
  }
}
/**
 * The running service's credential epoch: in Redis when REDIS_URL is set. Without Redis the
 * service caches keys only where this command cannot write beside it (the embedded database
 * is locked by the server) or where PAT_CACHE=on was chosen knowingly, so there is nothing to tell.
 */
function credentialEpoch(redisUrl: string | undefined): { epoch: CredentialEpoch; close(): void } {
  if (!redisUrl) return { epoch: localEpoch, close() {} };
  const redis = connectRedis(redisUrl, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 });
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
  'add-member': (base) =>
    `To add a member now, create an invitation link on the team page (${base}/orgs/<slug>/team), or change a member's role there.`,
};

const code = await withDatabase(
  async (db, config) => {
    const { epoch, close } = credentialEpoch(config.redisUrl);
    try {
      return print(await runAdminCommand(command, values, db.prisma, epoch, config));
    } finally {
      close();
    }
  },
  { whileRunning: WHILE_RUNNING[command] },
);
process.exit(code);
