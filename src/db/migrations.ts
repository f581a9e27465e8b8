import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { InferResult } from 'kysely';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList } from '@prisma/schema-engine-wasm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { type Database, openDatabase } from './client.js';
import { directSql } from './direct-sql.js';
import { withMigrationLock } from './migration-lock.js';
import { builder, rowsOf } from './sql-builder.js';
import { openSchemaEngine } from './schema-engine.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const schemaPath = join(root, 'prisma', 'schema.prisma');
const migrationsDir = join(root, 'prisma', 'migrations');
const noFilters = { externalTables: [], externalEnums: [] };

async function readSchema() {
  return { path: relative(root, schemaPath), content: await readFile(schemaPath, 'utf8') };
}

/** Names of the committed migrations (their directories), in the order they apply. */
export async function committedMigrationNames(dir = migrationsDir): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** The committed migrations, in the shape the schema engine reads (what `prisma migrate` reads). */
export async function readMigrations(dir = migrationsDir): Promise<MigrationList> {
  const names = await committedMigrationNames(dir);
  const lockPath = join(dir, 'migration_lock.toml');
  return {
    baseDir: dir,
    lockfile: {
      path: 'migration_lock.toml',
      content: existsSync(lockPath) ? await readFile(lockPath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      names.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok' as const, value: await readFile(join(dir, name, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

/**
 * Applies every committed migration not yet applied, recording them in `_prisma_migrations`
 * exactly as `prisma migrate deploy` does, so either tool can take over. On PostgreSQL, runs
 * of several processes at once take turns (an advisory lock: src/db/migration-lock.ts).
 */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const [schema, migrationsList] = await Promise.all([readSchema(), readMigrations()]);
  return withMigrationLock(adapterFactory, async () => {
    const engine = await openSchemaEngine(adapterFactory, schema);
    try {
      const out = await engine.applyMigrations({ migrationsList, filters: noFilters });
      return out.appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}

/**
 * The columns read of `_prisma_migrations`, the schema engine's own table: it is no model of
 * schema.prisma, so the generated table types do not hold it.
 */
interface PrismaMigrationsTable {
  migration_name: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** The migrations a database has finished applying (the rows `prisma migrate` reads too). */
export const appliedMigrations = builder
  .withTables<{ _prisma_migrations: PrismaMigrationsTable }>()
  .selectFrom('_prisma_migrations')
  .select('migration_name')
  .where('finished_at', 'is not', null)
  .where('rolled_back_at', 'is', null);
export type AppliedMigration = InferResult<typeof appliedMigrations>[number];
/** Its text, for a plain pg client (start-up's checks, before the database is opened). */
export const APPLIED_MIGRATIONS_SQL = appliedMigrations.compile().sql;

/**
 * applyMigrations when the database lacks a committed migration, and nothing otherwise: the
 * schema engine is WebAssembly that stays in memory once loaded (about 40 MB), so a restart of an
 * up-to-date database does not load it. Any failure to read the applied ones (no
 * `_prisma_migrations` table yet, a failed migration) leaves the case to the engine.
 */
export async function migrateIfBehind(db: Database): Promise<string[]> {
  const committed = await committedMigrationNames();
  const applied = await rowsOf(directSql(db.prisma), appliedMigrations).then(
    (rows) => new Set(rows.map((r) => r.migration_name)),
    () => null,
  );
  if (applied && committed.every((name) => applied.has(name))) return [];
  return applyMigrations(db.adapterFactory);
}

/** A throwaway in-memory database for the engine to replay migrations into. */
function scratchAdapter() {
  return new PrismaPGlite(new PGlite('memory://'));
}

/**
 * SQL that would bring a database built by the committed migrations to the current
 * schema.prisma; the empty string when they already agree.
 */
export async function pendingSchemaChanges(): Promise<string> {
  const schema = await readSchema();
  const engine = await openSchemaEngine(scratchAdapter(), schema);
  try {
    const out = await engine.diff({
      from: { tag: 'migrations', ...(await readMigrations()) },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    const sql = out.stdout ?? '';
    return /^\s*(-- This is an empty migration\.)?\s*$/.test(sql) ? '' : sql;
  } finally {
    engine.free();
  }
}

/**
 * Writes prisma/migrations/<timestamp>_<name>/migration.sql with the changes of schema.prisma
 * since the last migration; returns the directory, or null when there is nothing to write.
 * (The WebAssembly engine's own createMigration wants a shadow database factory it cannot be
 * given, so we name and write the directory here, in the layout `prisma migrate dev` uses.)
 */
export async function createMigration(name: string, now = new Date()): Promise<string | null> {
  const sql = await pendingSchemaChanges();
  if (!sql) return null;
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${name}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'migration.sql'), sql);
  return dir;
}

/**
 * Applies the pending migrations to `db`'s database, through `migrationUrl` when given: a direct
 * connection to the same PostgreSQL database, for when `db` goes through a transaction pooler,
 * which cannot keep the schema engine's session-level advisory lock on one server connection
 * (deploy/README.md). Returns the names applied.
 */
export async function migrateDatabase(db: Database, migrationUrl: string | undefined): Promise<string[]> {
  if (!migrationUrl) return migrateIfBehind(db);
  const direct = await openDatabase(migrationUrl);
  try {
    return await migrateIfBehind(direct);
  } finally {
    await direct.close();
  }
}
