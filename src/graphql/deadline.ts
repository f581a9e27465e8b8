/**
 * A signal for graphql-yoga's executor (@graphql-tools/executor) that aborts with `reason`
 * (made by `reason()`) once `timeoutMs` have passed, or when `parent` (the client's request) aborts.
 *
 * The executor asks the signal before every field, and the signal compares the clock: a timer
 * alone fires only when the event loop is free, which a chain of promises that settle at once
 * (the embedded database answers on this thread) can postpone past the deadline. The timer
 * still aborts a wait on the database. Only what the executor uses of an AbortSignal is
 * implemented: it is handed to nothing else.
 */
const CLOCK_EVERY = 32;

export interface Deadline {
  signal: AbortSignal;
  /**
   * Throws the deadline's error once it has passed (reading the clock), and aborts the signal
   * as soon as the work under way yields. Asked before each operation's statements
   * (src/schema/core/operation.ts), so that an executor that does not ask the signal (graphql-jit,
   * src/graphql/compiled-execution.ts) still stops sending statements at the deadline.
   */
  check(): void;
  dispose(): void;
}

/**
 * What the executor reads of the signal. A class rather than an object literal with getters:
 * a literal's accessors are a new accessor pair and closure per request, which V8 keeps
 * reachable until a full collection (src/schema/issues/operations.ts says what that costs).
 */
class DeadlineSignal {
  private asked = 0;
  readonly addEventListener: AbortSignal['addEventListener'];
  readonly removeEventListener: AbortSignal['removeEventListener'];

  constructor(
    private readonly real: AbortSignal,
    private readonly isAborted: () => boolean,
    private readonly passed: () => boolean,
  ) {
    this.addEventListener = real.addEventListener.bind(real);
    this.removeEventListener = real.removeEventListener.bind(real);
  }

  get aborted(): boolean {
    if (this.isAborted()) return true;
    // Aborting here, in the middle of the executor's synchronous work, would leave promises
    // it already made for earlier list items unobserved; the abort happens as soon as that
    // work yields, as a timer's would, only without waiting for the event loop. The clock is
    // read once every CLOCK_EVERY questions: a few microseconds of fields apart, and reading
    // it for each of the thousands of fields of a large response would cost 2% of its CPU.
    if (++this.asked === CLOCK_EVERY) {
      this.asked = 0;
      this.passed();
    }
    return false;
  }

  get reason(): unknown {
    return this.real.reason as unknown;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.real.reason;
  }
}

export function deadlineSignal(timeoutMs: number, reason: () => Error, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  const end = performance.now() + timeoutMs;
  // Made when the deadline passes: an error's stack trace costs more than the rest of a small
  // request's deadline. One error, whoever notices first.
  let error: Error | undefined;
  const expired = () => (error ??= reason());
  const abort = () => {
    if (!controller.signal.aborted) controller.abort(expired());
  };
  const timer = setTimeout(abort, timeoutMs);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const real = controller.signal;
  // Kept here rather than read from the real signal each time (a native getter with its checks).
  let aborted = false;
  real.addEventListener('abort', () => (aborted = true), { once: true });
  let due = false;
  /** Whether the deadline has passed (reading the clock); the first time, the abort is queued for when the work under way yields. */
  const passed = () => {
    if (due) return true;
    if (performance.now() < end) return false;
    due = true;
    queueMicrotask(abort);
    return true;
  };
  const signal = new DeadlineSignal(real, () => aborted, passed);
  return {
    signal: signal as unknown as AbortSignal,
    check() {
      if (aborted) throw real.reason;
      if (passed()) throw expired();
    },
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
