import { readFile } from 'node:fs/promises';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

type Bindings = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

let bindings: Promise<Bindings> | undefined;

/**
 * Loads Prisma's WebAssembly schema engine once per process.
 *
 * The package's entry imports the .wasm file as an ES module, which Node 22 does only behind
 * --experimental-wasm-modules and Node 24 does with an ExperimentalWarning on stderr, so we
 * instantiate it ourselves with the JS glue module as its import object (which also lets us
 * unref the engine's timers, below).
 */
function loadBindings(): Promise<Bindings> {
  bindings ??= (async () => {
    const glueUrl = import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as Bindings & {
      __wbg_set_wasm(exports: WebAssembly.Exports): void;
    };
    const bytes = await readFile(new URL('schema_engine_bg.wasm', glueUrl));
    // The engine arms timers it never clears; unref them so a finished command can exit
    // (otherwise `npm run seed` and friends linger ~10 s after their work is done).
    const imports: Record<string, unknown> = { ...glue };
    for (const [name, fn] of Object.entries(glue)) {
      if (name.startsWith('__wbg_setTimeout_') && typeof fn === 'function') {
        imports[name] = (...args: unknown[]) => {
          const timer = (fn as (...a: unknown[]) => unknown)(...args);
          (timer as { unref?: () => void }).unref?.();
          return timer;
        };
      }
    }
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': imports as never });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return bindings;
}

/** Opens a schema engine over a driver adapter, with `schema` as the target datamodel. */
export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schema: { path: string; content: string },
  log: (message: string) => void = () => {},
): Promise<SchemaEngine> {
  const { SchemaEngine } = await loadBindings();
  return SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    log,
    bindMigrationAwareSqlAdapterFactory(wholeScripts(adapterFactory)),
  );
}

/**
 * @prisma/adapter-pg runs a migration script by splitting it at every ";" and sending the
 * pieces one by one, which cuts a function body (`$$ ... ; ... $$`, the triggers of the
 * issue_counts migration) apart. PostgreSQL's simple query protocol takes a whole script in one
 * message, as `prisma migrate deploy` sends it, and runs it as one implicit transaction: this
 * sends it so, through the adapter's own pool. (PGlite's adapter already runs it whole.)
 */
function wholeScripts(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  if (factory.adapterName !== '@prisma/adapter-pg') return factory;
  const whole = (adapter: SqlDriverAdapter): SqlDriverAdapter =>
    Object.assign(Object.create(adapter) as SqlDriverAdapter, {
      executeScript: async (script: string) => {
        // underlyingDriver() is the adapter's pg.Pool (not in the adapter interface's type).
        await (adapter as unknown as { underlyingDriver(): pg.Pool }).underlyingDriver().query(script);
      },
    });
  return Object.assign(Object.create(factory) as SqlMigrationAwareDriverAdapterFactory, {
    connect: async () => whole(await factory.connect()),
    connectToShadowDb: async () => whole(await factory.connectToShadowDb()),
  });
}
