import { createContextCache } from '@pothos/core';

/**
 * Answers, with one call per request, the keys that resolvers of the same field ask for while
 * graphql-js resolves a list: a resolver calls `load(ctx, group, params, key)` for its parent
 * row, and the batch of its `group` (the field's arguments and selection, written as a string)
 * runs `run(ctx, params, keys)` once for every key asked before it starts. So a field under a
 * list costs one statement per request, whatever the length of the list (DataLoader's idea,
 * without its cache: a request reads what the database holds when it asks).
 */
export function createBatch<Ctx extends object, Params, Key, Value>(
  run: (ctx: Ctx, params: Params, keys: Key[]) => Promise<ReadonlyMap<Key, Value>>,
): (ctx: Ctx, group: string, params: Params, key: Key) => Promise<Value | undefined> {
  interface Pending {
    params: Params;
    waiting: Map<Key, { resolve: (value: Value | undefined) => void; reject: (error: unknown) => void }[]>;
  }
  const open = createContextCache((_ctx: Ctx) => new Map<string, Pending>());
  return (ctx, group, params, key) =>
    new Promise((resolve, reject) => {
      const groups = open(ctx);
      let batch = groups.get(group);
      if (!batch) {
        const started: Pending = { params, waiting: new Map() };
        batch = started;
        groups.set(group, started);
        // As DataLoader does: after the promise jobs already queued (the rest of the list's
        // resolvers run in them), then on the next tick.
        void Promise.resolve().then(() =>
          process.nextTick(() => {
            groups.delete(group);
            const keys = [...started.waiting.keys()];
            run(ctx, started.params, keys).then(
              (found) => {
                for (const [k, callers] of started.waiting) for (const caller of callers) caller.resolve(found.get(k));
              },
              (error: unknown) => {
                for (const callers of started.waiting.values()) for (const caller of callers) caller.reject(error);
              },
            );
          }),
        );
      }
      const callers = batch.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else batch.waiting.set(key, [{ resolve, reject }]);
    });
}
