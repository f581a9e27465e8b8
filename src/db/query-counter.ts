import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';

export interface QueryCounter {
  count: number;
  /** Called with each statement's duration in seconds (the metrics of every app over this database). */
  timers?: Set<(seconds: number) => void>;
}

/** Counts one statement and times it when a timer listens: every statement of the adapter, and DirectSql's (src/db/direct-sql.ts). */
export function counted<T>(counter: QueryCounter, send: () => Promise<T>): Promise<T> {
  counter.count++;
  const run = send();
  return counter.timers?.size ? timed(run, counter.timers) : run;
}

/** Reports `run`'s duration to every timer when it settles. */
function timed<T>(run: Promise<T>, timers: Set<(seconds: number) => void>): Promise<T> {
  const started = performance.now();
  const done = () => {
    const seconds = (performance.now() - started) / 1000;
    for (const timer of timers) timer(seconds);
  };
  run.then(done, done);
  return run;
}

function countOn<T extends SqlQueryable>(target: T, counter: QueryCounter): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (...args: unknown[]) => counted(counter, () => value.apply(obj, args) as Promise<unknown>);
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => countOn((await value.apply(obj, args)) as Transaction, counter);
      }
      return value.bind(obj);
    },
  });
}

/**
 * Wraps a driver adapter factory so that every SQL statement sent to the driver is counted (and
 * timed, when a timer is registered). Tests use the count to prove nested GraphQL selections cost
 * a constant number of statements; the metrics use the timings (at the driver, which sees every
 * statement, also inside transactions, without turning on Prisma's query event, which would
 * build an event with the SQL and its parameters for each one).
 */
export function countQueries(
  factory: SqlMigrationAwareDriverAdapterFactory,
  counter: QueryCounter,
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => countOn<SqlDriverAdapter>(await factory.connect(), counter),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}
