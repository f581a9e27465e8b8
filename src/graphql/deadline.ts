/**
 * A signal for graphql-yoga's executor (@graphql-tools/executor) that aborts with `reason`
 * once `timeoutMs` have passed, or when `parent` (the client's request) aborts.
 *
 * The executor asks the signal before every field, and the signal compares the clock: a timer
 * alone fires only when the event loop is free, which a chain of promises that settle at once
 * (the embedded database answers on this thread) can postpone past the deadline. The timer
 * still aborts a wait on the database. Only what the executor uses of an AbortSignal is
 * implemented: it is handed to nothing else.
 */
export function deadlineSignal(timeoutMs: number, reason: Error, parent?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const end = performance.now() + timeoutMs;
  const abort = () => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const timer = setTimeout(abort, timeoutMs);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const real = controller.signal;
  let due = false;
  const signal = {
    get aborted() {
      // Aborting here, in the middle of the executor's synchronous work, would leave promises
      // it already made for earlier list items unobserved; the abort happens as soon as that
      // work yields, as a timer's would, only without waiting for the event loop.
      if (!due && performance.now() >= end) {
        due = true;
        queueMicrotask(abort);
      }
      return real.aborted;
    },
    get reason() {
      return real.reason as unknown;
    },
    throwIfAborted() {
      if (signal.aborted) throw real.reason;
    },
    addEventListener: real.addEventListener.bind(real),
    removeEventListener: real.removeEventListener.bind(real),
  };
  return {
    signal: signal as unknown as AbortSignal,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
