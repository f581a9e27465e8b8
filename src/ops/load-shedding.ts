import { HttpProblem } from '../rest/problem.js';

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 50;

/**
 * The event loop's lag, from a timer that should fire every SAMPLE_MS: how late it fired last
 * time, or, when it is late right now (the loop is blocked or crowded at this moment), how
 * late it is. The second matters: a request that arrives just after the loop was held sees the
 * lag before the timer can report it.
 */
export class EventLoopLag {
  private lastTick = performance.now();
  private lastLagMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lastLagMs = Math.max(0, now - this.lastTick - SAMPLE_MS);
      this.lastTick = now;
    }, SAMPLE_MS);
    // A sampler alone keeps no process alive.
    this.timer.unref();
  }

  /** Milliseconds the loop is behind: the last sample's lag, or how overdue the next sample is. */
  ms(): number {
    return Math.max(this.lastLagMs, performance.now() - this.lastTick - SAMPLE_MS);
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * Load shedding: while the event loop lags more than `maxLagMs`, new requests are answered at
 * once with 503 `overloaded` and Retry-After, so that the work already admitted finishes, the
 * loop catches up, and a cheap request waits at most about that long rather than behind every
 * request that arrived before it. Operations endpoints are answered before this check (src/ops/observe.ts).
 */
export class LoadShedder {
  private readonly lag = new EventLoopLag();

  constructor(readonly maxLagMs: number) {}

  /** The 503 for a new request while the loop lags, else null. */
  refusal(): { response: Response; lagMs: number } | null {
    const lagMs = this.lag.ms();
    if (lagMs <= this.maxLagMs) return null;
    const problem = new HttpProblem(503, 'OVERLOADED', 'The service is overloaded. Retry after Retry-After seconds.', undefined, {
      'retry-after': '1',
      'cache-control': 'no-store',
    });
    return { response: problem.toResponse(), lagMs };
  }

  close(): void {
    this.lag.close();
  }
}
