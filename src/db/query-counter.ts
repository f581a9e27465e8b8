import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';

export interface QueryCounter {
  count: number;
}

function countOn<T extends SqlQueryable>(target: T, counter: QueryCounter): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (...args: unknown[]) => {
          counter.count++;
          return value.apply(obj, args);
        };
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => countOn((await value.apply(obj, args)) as Transaction, counter);
      }
      return value.bind(obj);
    },
  });
}

/**
 * Wraps a driver adapter factory so that every SQL statement sent to the driver is counted.
 * Tests use it to prove nested GraphQL selections cost a constant number of statements.
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
