import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const databaseUrl = z
  .string()
  .refine((v) => /^(file:.+|memory:\/\/.*|postgres(ql)?:\/\/.+)$/.test(v), {
    message: 'must be file:<dir>, memory://, postgres://... or postgresql://...',
  });

/** Every variable the service reads, with its default. The README documents each one. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !/[?#]/.test(u), { message: 'must not have a query or fragment' })
    .optional(),
  DATABASE_URL: databaseUrl.optional(),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\/.+/.test(v), { message: 'must be redis://... or rediss://...' })
    .optional(),
  MIGRATE_ON_START: bool.default(true),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  GRAPHQL_INTROSPECTION: bool.optional(),
  PAT_CACHE: z.enum(['auto', 'on', 'off']).default('auto'),
  GRAPHQL_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  GRAPHQL_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1).default(16 * 1024 * 1024),
});

/** Whether DATABASE_URL names PostgreSQL (anything else is the embedded database). */
export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

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
  /** How long one GraphQL execution may run (DEADLINE_EXCEEDED after). */
  graphqlTimeoutMs: number;
  /** The largest GraphQL response, in bytes of JSON (RESPONSE_TOO_LARGE above). */
  graphqlMaxResponseBytes: number;
}

export class ConfigError extends Error {
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
  const dataUrl = e.DATABASE_URL ?? 'file:./data';
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl: (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: dataUrl,
    redisUrl: e.REDIS_URL,
    migrateOnStart: e.MIGRATE_ON_START,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    patCache: resolvePatCache(e.PAT_CACHE, dataUrl, e.REDIS_URL),
    graphqlTimeoutMs: e.GRAPHQL_TIMEOUT_MS,
    graphqlMaxResponseBytes: e.GRAPHQL_MAX_RESPONSE_BYTES,
  };
}

/** A complete configuration for tests and tools, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: 'silent' }), databaseUrl: 'memory://', ...overrides };
}
