// The targets of issue 12, in one place: the run decides what it missed with them, the report
// shows them. Throughput as a share of the raw baseline's, per database.
export const RATIO_TARGETS = {
  postgres: { rest_read: 0.6, rest_me: 0.6, rest_create: 0.7, graphql_nested: 0.4 },
  pglite: { rest_read: 0.7, rest_me: 0.7, rest_create: 0.8, graphql_nested: 0.5 },
} as const satisfies Record<'postgres' | 'pglite', Record<string, number>>;

/** Authentication + rate limiting, p50 in process with the key cache. */
export const AUTH_RATE_LIMIT_P50_US = 20;
/** REST read p50 from 1k issues to 100k and to 1M (BENCH_SCALE_ISSUES), either way. */
export const READ_FLAT_WITHIN = 0.2;

/** The workloads of `database` whose throughput ratio (app ÷ baseline) is under its target, or missing. */
export function missedRatios(
  database: keyof typeof RATIO_TARGETS,
  summary: Record<string, { throughput_ratio: number | null } | undefined>,
): string[] {
  return Object.entries(RATIO_TARGETS[database])
    .filter(([id, target]) => (summary[id]?.throughput_ratio ?? 0) < target)
    .map(([id]) => id);
}
