import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { StartupError } from './ops/startup-error.js';
import { parseRedisUrl } from './redis/redis-url.js';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/** Whether DATABASE_URL names PostgreSQL (anything else is the embedded database). */
export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

const databaseUrl = z.string().refine((v) => /^(file:.+|memory:\/\/.*|postgres(ql)?:\/\/.+)$/.test(v), {
  message: 'must be file:<dir>, memory://, postgres://... or postgresql://...',
});

/** `*`, or origins (`https://app.example.org`, no path) separated by commas. */
const corsOrigins = z.string().transform((value, ctx): '*' | string[] => {
  if (value.trim() === '*') return '*';
  const origins = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      ctx.addIssue({
        code: 'custom',
        message: `"${origin}" is not an origin: scheme://host[:port], no path or trailing slash, or * for any`,
      });
    }
  }
  if (!origins.length) ctx.addIssue({ code: 'custom', message: 'must be * or at least one origin' });
  return origins;
});

const milliseconds = z.coerce.number().int().min(1).max(3_600_000);

/** Every variable the service reads, with its default. docs/configuration.md documents each one (a test checks). */
const EnvSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(4000),
    HOST: z.string().min(1).default('127.0.0.1'),
    BASE_URL: z
      .url({ protocol: /^https?$/ })
      .refine((u) => !/[?#]/.test(u), { message: 'must not have a query or fragment' })
      .optional(),
    DATABASE_URL: databaseUrl.optional(),
    // A direct PostgreSQL URL for migrations where DATABASE_URL goes through a transaction pooler (deploy/README.md).
    MIGRATION_DATABASE_URL: z
      .string()
      .refine((v) => isPostgresUrl(v), { message: 'must be postgres://... or postgresql://...' })
      .optional(),
    REDIS_URL: z
      .string()
      .superRefine((v, ctx) => {
        const target = parseRedisUrl(v);
        if ('problem' in target) ctx.addIssue({ code: 'custom', message: target.problem });
      })
      .optional(),
    MIGRATE_ON_START: bool.default(true),
    TRUST_PROXY: bool.default(false),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    GRAPHQL_INTROSPECTION: bool.optional(),
    PAT_CACHE: z.enum(['auto', 'on', 'off']).default('auto'),
    // Connections (src/http/node-server.ts); docs/configuration.md explains each.
    HTTP_HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: milliseconds.default(60_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds.optional(),
    MAX_CONNECTIONS: z.coerce.number().int().min(1).default(4096),
    MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).optional(),
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    // Long enough that guessing is hopeless (`openssl rand -hex 32` gives 64 characters).
    METRICS_TOKEN: z.string().min(32, { message: 'must be at least 32 characters (openssl rand -hex 32)' }).optional(),
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(600).default(0),
    SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(3600).default(10),
    GRAPHQL_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
    GRAPHQL_MAX_RESPONSE_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(8 * 1024 * 1024),
    // Load shedding (src/ops/load-shedding.ts): the event-loop lag past which new requests get 503; 0 turns it off.
    LOAD_SHED_LAG_MS: z.coerce.number().int().min(0).max(60_000).default(300),
    // How many times a query document runs on yoga's executor before it is compiled (src/graphql/compiled-execution.ts); `never` keeps every query there.
    GRAPHQL_COMPILE_AFTER: z
      .union([z.literal('never').transform(() => Number.POSITIVE_INFINITY), z.coerce.number().int().min(0)])
      .default(1),
    CORS_ORIGINS: corsOrigins.default('*'),
    // Hosts whose client metadata documents may be fetched although they resolve to private,
    // loopback or link-local addresses (an intranet tool, a test): comma-separated host names.
    OAUTH_CLIENT_METADATA_ALLOWED_HOSTS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      )
      .default([]),
    // PEM file of extra certificate authorities for those fetches (an internal CA).
    OAUTH_CLIENT_METADATA_CA_FILE: z.string().optional(),
    // Trusted documents (src/graphql/trusted-documents.ts): the registered documents, and the credential kinds limited to them.
    GRAPHQL_TRUSTED_DOCUMENTS: z.string().min(1).optional(),
    GRAPHQL_TRUSTED_ONLY: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((kind) => kind.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.enum(['pat', 'oauth', 'session'], { message: 'must list pat, oauth or session, separated by commas' }),
        ),
      )
      .default([]),
    // Webhooks (src/webhooks); docs/configuration.md explains each, and the risk of the first.
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: bool.default(false),
    WEBHOOKS_SECRET_KEY: z
      .string()
      .min(32, { message: 'must be at least 32 characters (openssl rand -hex 32)' })
      .optional(),
    WEBHOOKS_WORKER: bool.default(true),
    WEBHOOKS_LEASE_SECONDS: z.coerce.number().int().min(11).max(3600).default(60),
    // Subscriptions (src/live/stream-slots.ts); docs/configuration.md explains each.
    SUBSCRIPTION_STREAMS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(10),
    SUBSCRIPTION_STREAMS_PER_ORG: z.coerce.number().int().min(1).default(100),
    SUBSCRIPTION_RECHECK_MS: milliseconds.default(5_000),
    // The embedded database's VACUUM (src/db/vacuum.ts); PostgreSQL runs its own autovacuum.
    VACUUM_INTERVAL_MINUTES: z.coerce.number().min(0).max(10_080).default(60),
    // Mail (src/mail/mailer.ts): invitation and password links go out by mail when this is set.
    SMTP_URL: z
      .url({ protocol: /^smtps?$/, error: 'must be smtp://[user:password@]host[:port] or smtps://...' })
      .optional(),
    MAIL_FROM: z.string().min(3).max(254).optional(),
  })
  .refine((e) => !e.MIGRATION_DATABASE_URL || (e.DATABASE_URL !== undefined && isPostgresUrl(e.DATABASE_URL)), {
    message: 'needs DATABASE_URL to name PostgreSQL too (the embedded database migrates in its own process)',
    path: ['MIGRATION_DATABASE_URL'],
  })
  .refine((e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS, {
    // Node refuses a headers timeout longer than the request timeout it is part of.
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
  });

/** A URL fit for messages and logs: its user and password (if any) replaced by `***`. */
export const redactUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

/** The names of those variables (docs/configuration.md has a row for each). */
export const ENV_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

export type PatCacheSetting = z.infer<typeof EnvSchema>['PAT_CACHE'];

/**
 * Whether verified PATs are cached. `auto` caches where every credential write reaches this
 * process's epoch: the embedded database (one process can open it, so the admin CLI cannot
 * write beside the server) or REDIS_URL (a shared epoch). PostgreSQL without Redis: off, since
 * another instance or the admin CLI could revoke a key without this process knowing.
 */
export function resolvePatCache(setting: PatCacheSetting, databaseUrl: string, redisUrl: string | undefined): boolean {
  if (setting !== 'auto') return setting === 'on';
  return redisUrl !== undefined || !isPostgresUrl(databaseUrl);
}

export interface Config {
  port: number;
  host: string;
  /** Public address, no trailing slash: the API lives at `${baseUrl}/api`. */
  baseUrl: string;
  /** Where the data lives: `file:<dir>`, `memory://` or a PostgreSQL URL. */
  databaseUrl: string;
  /**
   * Where migrations run (start-up and `npm run db:migrate`) when not DATABASE_URL: a direct
   * PostgreSQL URL, since a transaction pooler cannot hold the schema engine's session advisory lock.
   */
  migrationDatabaseUrl: string | undefined;
  /** Rate-limit buckets shared by every instance; unset: kept in this process. */
  redisUrl: string | undefined;
  migrateOnStart: boolean;
  /** Believe X-Forwarded-For / X-Forwarded-Proto from the one proxy in front of us. */
  trustProxy: boolean;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  production: boolean;
  /** GraphQL introspection and GraphiQL: on by default except in production. */
  graphqlIntrospection: boolean;
  /** Cache verified PATs (PAT_CACHE, resolved: see resolvePatCache). */
  patCache: boolean;
  /** A second port (on `host`) serving only GET /metrics; unset: none. */
  metricsPort: number | undefined;
  /** Bearer token for /metrics: enables it on the main port, and is required on the metrics port too. */
  metricsToken: string | undefined;
  /** On SIGTERM/SIGINT: seconds to keep accepting requests with readiness at 503 (for load balancers to notice). */
  shutdownDelaySeconds: number;
  /** Then: seconds requests in flight may take to finish before their connections are cut (exit 1). */
  shutdownTimeoutSeconds: number;
  /** How long one GraphQL execution may run (DEADLINE_EXCEEDED after). */
  graphqlTimeoutMs: number;
  /** The largest GraphQL response, in bytes of JSON (RESPONSE_TOO_LARGE above). */
  graphqlMaxResponseBytes: number;
  /** Event-loop lag (ms) past which new requests get 503 `overloaded` (src/ops/load-shedding.ts); 0: never. */
  loadShedLagMs: number;
  /** Runs of a query document on yoga's executor before it is compiled (Infinity: never). */
  graphqlCompileAfter: number;
  /** Origins whose pages may call the API and the OAuth back-channel with a bearer token (src/pipeline/cors.ts). */
  corsOrigins: '*' | readonly string[];
  /** A JSON file of the documents operators registered: {"<sha256 hex of the document>": "<document>"}. */
  graphqlTrustedDocuments: string | undefined;
  /** Credential kinds that may send registered documents only (by hash), never a document of their own. */
  graphqlTrustedOnly: ('pat' | 'oauth' | 'session')[];
  connections: ConnectionLimits;
  /** Fetching OAuth Client ID Metadata Documents (src/auth/oauth/client-metadata.ts). */
  clientMetadata: { allowedHosts: string[]; caPem: string | undefined };
  webhooks: WebhookSettings;
  liveStreams: LiveStreamLimits;
  /** How often the embedded database is vacuumed (src/db/vacuum.ts); 0: never. Not used on PostgreSQL. */
  vacuumIntervalMs: number;
  mail: MailSettings;
}

/** Sending mail (src/mail/mailer.ts). */
export interface MailSettings {
  /** The SMTP server; unset: no mail is sent, links are only shown. */
  smtpUrl: string | undefined;
  /** The sender: MAIL_FROM, else `workmgmt <no-reply@<BASE_URL's host>>`. */
  from: string;
}

/** GraphQL subscription streams, counted on this instance (src/live/stream-slots.ts). */
export interface LiveStreamLimits {
  /** Open streams of one credential (a key, an OAuth grant, a session). */
  perCredential: number;
  /** Open streams of one organization, whatever the credential. */
  perOrganization: number;
  /** How often an open stream's credential is checked again, events or not (a revoked key's streams end). */
  recheckMs: number;
}

/** Webhook delivery (src/webhooks). */
export interface WebhookSettings {
  /** Receivers on private, loopback and link-local addresses, and plain http, are allowed. */
  allowPrivateNetworks: boolean;
  /** Seals signing secrets at rest; unset: a fixed development key (docs/configuration.md says why that is not for production). */
  secretKey: string | undefined;
  /** Run the delivery worker in this process. */
  worker: boolean;
  /** How long a worker holds a delivery it is sending (longer than the 10 s send timeout). */
  leaseSeconds: number;
}

/** What the Node server allows a connection (src/http/node-server.ts). */
export interface ConnectionLimits {
  /** From a request's first byte to the end of its headers (slow-header attacks). */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (slow-body attacks). */
  requestTimeoutMs: number;
  /** How long an idle connection is kept between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections in total. */
  maxConnections: number;
  /** Open connections from one peer address; 0: no such cap. */
  maxConnectionsPerAddress: number;
}

/** Every problem of the environment at once: a start-up mistake like any other. */
export class ConfigError extends StartupError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once; every problem is reported together. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([k, v]) => k in EnvSchema.shape && v !== '')),
  );
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  let caPem: string | undefined;
  if (e.OAUTH_CLIENT_METADATA_CA_FILE) {
    try {
      caPem = readFileSync(e.OAUTH_CLIENT_METADATA_CA_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError([
        `OAUTH_CLIENT_METADATA_CA_FILE: cannot read ${e.OAUTH_CLIENT_METADATA_CA_FILE} (${(error as Error).message})`,
      ]);
    }
  }
  const dataUrl = e.DATABASE_URL ?? 'file:./data';
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: dataUrl,
    migrationDatabaseUrl: e.MIGRATION_DATABASE_URL,
    redisUrl: e.REDIS_URL,
    migrateOnStart: e.MIGRATE_ON_START,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    patCache: resolvePatCache(e.PAT_CACHE, dataUrl, e.REDIS_URL),
    // Behind a proxy (TRUST_PROXY) every connection comes from the proxy: it gets no per-address
    // cap, and idle connections outlive the proxies' usual 60 s idle timeout, so the proxy closes
    // them first and never sends a request on a connection we are closing.
    connections: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? (e.TRUST_PROXY ? 65_000 : 5_000),
      maxConnections: e.MAX_CONNECTIONS,
      maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS ?? (e.TRUST_PROXY ? 0 : 256),
    },
    metricsPort: e.METRICS_PORT,
    metricsToken: e.METRICS_TOKEN,
    shutdownDelaySeconds: e.SHUTDOWN_DELAY_SECONDS,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
    graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    graphqlMaxResponseBytes: e.GRAPHQL_MAX_RESPONSE_BYTES,
    loadShedLagMs: e.LOAD_SHED_LAG_MS,
    graphqlCompileAfter: e.GRAPHQL_COMPILE_AFTER,
    corsOrigins: e.CORS_ORIGINS,
    clientMetadata: { allowedHosts: e.OAUTH_CLIENT_METADATA_ALLOWED_HOSTS, caPem },
    graphqlTrustedDocuments: e.GRAPHQL_TRUSTED_DOCUMENTS,
    graphqlTrustedOnly: e.GRAPHQL_TRUSTED_ONLY,
    webhooks: {
      allowPrivateNetworks: e.WEBHOOKS_ALLOW_PRIVATE_NETWORKS,
      secretKey: e.WEBHOOKS_SECRET_KEY,
      worker: e.WEBHOOKS_WORKER,
      leaseSeconds: e.WEBHOOKS_LEASE_SECONDS,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `workmgmt <no-reply@${new URL(baseUrl).hostname}>` },
    liveStreams: {
      perCredential: e.SUBSCRIPTION_STREAMS_PER_CREDENTIAL,
      perOrganization: e.SUBSCRIPTION_STREAMS_PER_ORG,
      recheckMs: e.SUBSCRIPTION_RECHECK_MS,
    },
    vacuumIntervalMs: e.VACUUM_INTERVAL_MINUTES * 60_000,
  };
}

/** A complete configuration for tests and tools, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ LOG_LEVEL: 'silent' });
  // No delivery worker unless a test asks for one: its polls would count in tests that count statements.
  // Queries compiled from their first run, so that the suite's queries run on the executor production runs them on.
  // No load shedding unless a test asks for it: on a busy test machine the loop lags, and a 503 would fail an unrelated test.
  // No scheduled VACUUM unless a test asks for one: a pass would count in tests that count statements.
  return {
    ...base,
    databaseUrl: 'memory://',
    webhooks: { ...base.webhooks, worker: false },
    graphqlCompileAfter: 0,
    loadShedLagMs: 0,
    vacuumIntervalMs: 0,
    ...overrides,
  };
}
