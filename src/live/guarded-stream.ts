export interface StreamGuard<T> {
  /** Whether the subscriber wants this event. */
  accept(event: T): boolean;
  /** Rejects when the subscriber may no longer listen (its error ends the stream). */
  check(): Promise<void>;
  /** How often `check` runs while no event comes. */
  recheckMs: number;
  /** Called once, however the stream ends: returned by the client, failed, closed by the server. */
  onEnd(): void;
}

/** The stream, and a way for the server to end it (the app is closing). */
export type GuardedStream<T> = AsyncIterableIterator<T> & { end(): void };

const STOPPED = Symbol('stopped');

/**
 * The accepted events of `source`, each passed by `check` first, with `check` also run every
 * `recheckMs`: a subscriber whose credential is revoked or has expired is told (its `next()`
 * rejects with check's error) within that time even when no event comes.
 *
 * Written as an iterator rather than an async generator: a generator waiting in `for await` for
 * the next event cannot be returned until that event comes, so a client's disconnect would hold
 * its slot and its listener for as long as the organization stays quiet. Here `return()` ends
 * the stream at once.
 */
export function guardedStream<T>(source: AsyncIterable<T>, guard: StreamGuard<T>): GuardedStream<T> {
  const events = source[Symbol.asyncIterator]();
  let ended = false;
  let failure: { error: unknown } | null = null;
  // Wakes the next() waiting for an event. Not a Promise.race against one "stopped" promise:
  // each race would leave a reaction on it for as long as the stream lives.
  let wake: (() => void) | null = null;
  const nextEvent = () =>
    new Promise<IteratorResult<T> | typeof STOPPED>((resolve, reject) => {
      wake = () => resolve(STOPPED);
      events.next().then(resolve, reject);
    }).finally(() => (wake = null));
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    wake?.();
    guard.onEnd();
    void Promise.resolve(events.return?.()).catch(() => {});
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    end();
  };
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    guard.check().then(
      () => (checking = false),
      (error) => fail(error),
    );
  }, guard.recheckMs);
  // An open stream alone does not keep the process alive (its connection does).
  timer.unref();

  const finish = (): IteratorResult<T> => {
    if (!failure) return { done: true, value: undefined };
    const { error } = failure;
    failure = null;
    throw error;
  };

  return {
    async next() {
      try {
        while (!ended) {
          const got = await nextEvent();
          if (got === STOPPED) break;
          if (got.done) {
            end();
            break;
          }
          if (!guard.accept(got.value)) continue;
          await guard.check();
          if (!ended) return { done: false, value: got.value };
        }
      } catch (error) {
        fail(error);
      }
      return finish();
    },
    async return() {
      end();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      fail(error);
      return finish();
    },
    end,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
