/**
 * When a failed delivery is tried again: the first retries within seconds, then backing off to
 * about a day in all (23 h 42 min over 10 retries), each delay with ±20 % jitter so that the
 * deliveries of an endpoint that came back do not all return at once.
 */
const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800] as const;

/** Attempts in all: the first and one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** An endpoint failing for this long without one success is disabled, with the reason shown to its owners. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;

/** The longest wait a receiver's Retry-After can impose. */
const RETRY_AFTER_MAX_SECONDS = 24 * 3600;

/** Timeouts, network errors, 5xx, 408 and 429 are worth another attempt; any other answer is final. */
export function retryable(status: number | null): boolean {
  return status === null || status >= 500 || status === 408 || status === 429;
}

/**
 * Seconds until the next attempt after `attempts` failed ones, or null when none is left. A
 * receiver's Retry-After is honoured when it asks for longer than the schedule.
 */
export function nextDelaySeconds(
  attempts: number,
  retryAfterSeconds: number | null,
  random = Math.random,
): number | null {
  const base = RETRY_DELAYS_SECONDS[attempts - 1];
  if (base === undefined) return null;
  const jittered = base * (0.8 + 0.4 * random());
  return Math.max(jittered, Math.min(retryAfterSeconds ?? 0, RETRY_AFTER_MAX_SECONDS));
}
