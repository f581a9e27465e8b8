/** `promise`, or a rejection with `message` after `ms`. Used for Redis replies and readiness checks. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // When the event loop was busy past the deadline, the reply may already be waiting in the
    // socket: timers run before I/O callbacks, so give that reply one turn to win the race
    // rather than falling back (and double-counting) on a load spike of our own.
    timer = setTimeout(() => setImmediate(() => reject(new Error(message))), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
