import { problemResponse } from '../http/problem.js';
import { AppError } from '../schema/core/errors.js';

/** How often the event loop's lag is sampled. */
const SAMPLE_MS = 50;

/**
 * The event loop's lag, from a timer that should fire every SAMPLE_MS: how late it fired the
 * last two times, and how overdue it is right now (a request that arrives just after the loop
 * was held sees that before the timer can report it).
 */
export class EventLoopLag {
  private lastTick = performance.now();
  private lastLagMs = 0;
  private previousLagMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.previousLagMs = this.lastLagMs;
      this.lastLagMs = Math.max(0, now - this.lastTick - SAMPLE_MS);
      this.lastTick = now;
    }, SAMPLE_MS);
    // A sampler alone keeps no process alive.
    this.timer.unref();
  }

  /**
   * The lag the loop has kept up: the smaller of two lags in a row (the last sample's and the one
   * before it, or the last sample's and how overdue the next one is now). One long synchronous
   * stretch (a large statement on the embedded database, a big answer serialised) makes one late
   * sample and is not overload: the requests queued behind it are served. Two in a row mean work
   * arrives faster than the loop clears it.
   */
  sustainedMs(): number {
    const overdue = performance.now() - this.lastTick - SAMPLE_MS;
    return Math.min(this.lastLagMs, Math.max(overdue, this.previousLagMs));
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/**
 * Load shedding: while the event loop keeps lagging more than `maxLagMs`, new requests are answered at
 * once with 503 `overloaded` and Retry-After, so that the work already admitted finishes, the
 * loop catches up, and a cheap request waits at most about that long rather than behind every
 * request that arrived before it. Operations endpoints are answered before this check (src/ops/observe.ts).
 */
export class LoadShedder {
  private readonly lag = new EventLoopLag();

  constructor(readonly maxLagMs: number) {}

  /** The 503 for a new request while the loop lags, else null. */
  refusal(): { response: Response; lagMs: number } | null {
    const lagMs = this.lag.sustainedMs();
    if (lagMs <= this.maxLagMs) return null;
    const problem = new AppError('The service is overloaded. Retry after Retry-After seconds.', 'OVERLOADED');
    return { response: problemResponse(problem), lagMs };
  }

  close(): void {
    this.lag.close();
  }
}
