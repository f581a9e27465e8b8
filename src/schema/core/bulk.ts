/**
 * The most items one bulk call takes (createIssues, updateIssues): a call's work, its
 * transaction's locks and its answer stay bounded, and its rate-limit cost
 * (src/schema/core/rate-limit.ts) grows with it.
 */
export const BULK_MAX = 100;

/** Items one extra request of the global bucket pays for: a bulk call costs 1 + ceil(n / BULK_ITEMS_PER_REQUEST). */
export const BULK_ITEMS_PER_REQUEST = 10;
