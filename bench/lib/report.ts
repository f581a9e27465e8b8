// report.json, report.md, and the generated part of bench/SUMMARY.md (between markers, so the
// hand-written analysis around it survives new runs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Comparison } from './compare.js';
import type { Explained } from './explain.js';
import type { SqlProfile } from './inprocess.js';
import type { ProfileSummary } from './profile.js';
import { AUTH_RATE_LIMIT_P50_US, missedRatios, RATIO_TARGETS, READ_FLAT_WITHIN } from './targets.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

const LABELS: Record<string, string> = {
  rest_read: '(a) REST read: GET /api/issues?project_id=&limit=100',
  rest_create: '(b) REST create: POST /api/issues',
  rest_me: '(c) GET /api/me',
  graphql_nested: '(d) GraphQL org > projects > issues(50) > assignee',
  rest_read_noauth: '(e) REST read, auth + rate limiting off',
  rest_read_small: "(a') REST read, 100-issue project",
};

const f = (x: number | null | undefined, digits = 0) =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(digits);
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(0)}%`);
const signed = (x: number | null | undefined) =>
  x === null || x === undefined ? '—' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

function summaryTable(
  summary: Record<string, Any>,
  sql: Record<string, SqlProfile> | undefined,
  baselineStatements: Record<string, number>,
  database: keyof typeof RATIO_TARGETS,
): string[] {
  const lines = [
    '| Workload | App req/s | App p50 / p99 ms | Baseline req/s | Baseline p50 / p99 ms | Throughput ratio (target) | Server CPU µs/req app / baseline | DB CPU µs/req app / baseline | SQL statements/req app / baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [id, s] of Object.entries(summary)) {
    if (id === 'rest_read_small') continue;
    const target = (RATIO_TARGETS[database] as Record<string, number | undefined>)[id];
    const ratio = s.throughput_ratio as number | null;
    const verdict =
      target === undefined
        ? ''
        : ratio !== null && ratio >= target
          ? ` (≥ ${pct(target)} ✅)`
          : ` (≥ ${pct(target)} ❌)`;
    const q = sql?.[id];
    const appSql = q
      ? `${q.statements_per_request_with_begin}${q.statements_per_request_with_begin !== q.statements_per_request ? ` (${q.statements_per_request} + BEGIN)` : ''}`
      : '—';
    lines.push(
      `| ${LABELS[id] ?? id} | ${f(s.app?.rps)} | ${f(s.app?.p50_ms, 2)} / ${f(s.app?.p99_ms, 2)} | ${f(s.baseline?.rps)} | ${f(s.baseline?.p50_ms, 2)} / ${f(s.baseline?.p99_ms, 2)} | ${pct(ratio)}${verdict}${s.paired_ratios?.length > 1 ? ` [rounds: ${s.paired_ratios.map(pct).join(', ')}]` : ''} | ${f(s.app?.server_cpu_us_per_req)} / ${f(s.baseline?.server_cpu_us_per_req)} | ${f(s.app?.db_cpu_us_per_req)} / ${f(s.baseline?.db_cpu_us_per_req)} | ${sql ? appSql : '—'} / ${baselineStatements[id] !== undefined ? f(baselineStatements[id], 2) : '—'} |`,
    );
  }
  return lines;
}

/** The second comparison: the service against what most teams would write (Fastify + Prisma). */
function commonTable(summary: Record<string, Any>): string[] {
  const rows = Object.entries(summary).filter(([, s]) => s.common);
  if (!rows.length) return [];
  const lines = [
    '| Workload | App req/s | Common stack req/s | App ÷ common (must be > 1) | App p50 / common p50 ms | Server CPU µs/req app / common |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [id, s] of rows) {
    const verdict = s.vs_common === null ? '' : s.vs_common > 1 ? ' ✅' : ' ❌';
    lines.push(
      `| ${LABELS[id] ?? id} | ${f(s.app?.rps)} | ${f(s.common.rps)} | ${f(s.vs_common, 2)}×${verdict} | ${f(s.app?.p50_ms, 2)} / ${f(s.common.p50_ms, 2)} | ${f(s.app?.server_cpu_us_per_req)} / ${f(s.common.server_cpu_us_per_req)} |`,
    );
  }
  return lines;
}

function baselineStatements(runs: Any[], target: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs)
    if (r.target === target && r.baseline_statements_per_req !== null && r.phase === 'full')
      out[r.workload] = r.baseline_statements_per_req;
  return out;
}

function renderMarkdown(report: Any): string {
  const m = report.machine;
  const c = report.config;
  const pgr = report.postgres ?? {};
  const lines: string[] = [];
  lines.push('# Benchmark: the service against a raw node:http + pg baseline', '');
  lines.push(
    `Generated ${report.generated_at} in ${report.wall_seconds} s. Machine: ${m.cpus} × ${m.model}, ${m.memory_gb} GB, Node ${m.node}, ${m.platform}. ` +
      `${m.taskset ? `Servers pinned to core ${m.pinning.server_core}, load generator to core ${m.pinning.load_generator_core} (taskset); PostgreSQL unpinned.` : 'No taskset: nothing pinned.'}`,
  );
  lines.push(
    `Load average before ${m.loadavg_before.join(' / ')}, after ${m.loadavg_after.join(' / ')}; median CPU used by other processes during the runs: ${m.median_foreign_cores_during_runs} cores. ` +
      `**${m.shared ? 'The machine was shared with other work during this run: absolute figures are low and noisy; ratios are from interleaved runs.' : 'The machine was otherwise idle.'}**`,
  );
  lines.push(
    '',
    `Config: ${c.connections} connections, ${c.duration_s} s per measured run after ${c.warmup_s} s warm-up, ${c.issues} issues, ${c.rounds} interleaved app/baseline rounds per workload on PostgreSQL (${c.scale_rounds} for the read-scaling comparison), ${c.pglite_rounds} on PGlite. PostgreSQL server ${c.postgres_server}. Figures are medians over rounds; latency percentiles are over successful responses.`,
    '',
  );

  lines.push('## PostgreSQL', '');
  if (pgr.summary)
    lines.push(...summaryTable(pgr.summary, pgr.sql, baselineStatements(report.runs, 'postgres'), 'postgres'), '');
  if (pgr.summary && commonTable(pgr.summary).length) {
    lines.push(
      '### Against the common stack',
      '',
      'bench/common-stack-server.ts: the REST workloads as a conventional Fastify + Prisma service (same database, same auth lookup without a key cache, zod validation, Prisma calls as documented).',
      '',
      ...commonTable(pgr.summary),
      '',
    );
  }
  lines.push(
    'Throughput ratio = app req/s ÷ baseline req/s. Server CPU = user+system time of the server process per request (less sensitive to other load than req/s). ' +
      "DB CPU = CPU of this database's PostgreSQL backends per request. App SQL counts come from an in-process run through app.fetch over a logging driver adapter " +
      '(what src/db/query-counter.ts counts, plus the BEGIN the pg adapter sends itself); baseline counts are measured during its load runs (BEGIN/COMMIT included). ' +
      'Workload (e) compares the app without auth/rate limiting (bench/app-noauth.ts) with the baseline without auth.',
    '',
  );

  // Targets.
  const a = pgr.auth_rate_limit;
  const s = pgr.scaling;
  lines.push('### Targets', '', '| Target | Measured | Met |', '|---|---|---|');
  for (const [database, summary] of [
    ['postgres', pgr.summary],
    ['pglite', report.pglite?.summary],
  ] as const) {
    if (!summary) continue;
    const missed = missedRatios(database, summary);
    for (const [id, target] of Object.entries(RATIO_TARGETS[database])) {
      lines.push(
        `| ${LABELS[id]} (${database}) ≥ ${pct(target)} of baseline throughput | ${pct(summary[id]?.throughput_ratio)} | ${missed.includes(id) ? '❌' : '✅'} |`,
      );
    }
  }
  if (a)
    lines.push(
      `| Auth + rate limiting ≤ ${AUTH_RATE_LIMIT_P50_US} µs at p50 (in-process) | ${a.auth_plus_rate_limit.p50_us} µs | ${a.auth_plus_rate_limit.p50_us <= AUTH_RATE_LIMIT_P50_US ? '✅' : '❌'} |`,
    );
  if (s) {
    lines.push(
      `| REST read p50 flat within ${pct(READ_FLAT_WITHIN)} from 1k issues | ${readFlatText(s, c)} | ${s.flat ? '✅' : '❌'} |`,
    );
  }
  lines.push('');

  if (s) {
    lines.push(`### Read latency from 1,000 to ${c.scale_issues > 0 ? c.scale_issues : c.issues} issues`, '');
    lines.push('| | App p50 ms | App req/s | Baseline p50 ms |', '|---|---:|---:|---:|');
    lines.push(
      `| 100-issue project, 1,000 issues in the database | ${f(s.app_p50_ms.small_project_at_1k, 2)} | ${f(s.app_rps.small_project_at_1k)} | ${f(s.baseline_p50_ms.small_project_at_1k, 2)} |`,
    );
    lines.push(
      `| same project, ${c.issues} issues in the database | ${f(s.app_p50_ms.small_project_at_full, 2)} | ${f(s.app_rps.small_project_at_full)} | ${f(s.baseline_p50_ms.small_project_at_full, 2)} |`,
    );
    lines.push(
      `| largest project (workload a), ${c.issues} issues | ${f(s.app_p50_ms.big_project_at_full, 2)} | ${f(s.app_rps.big_project_at_full)} | |`,
    );
    if (c.scale_issues > 0) {
      lines.push(
        `| 100-issue project, ${c.scale_issues} issues in the database | ${f(s.app_p50_ms.small_project_at_xl, 2)} | ${f(s.app_rps.small_project_at_xl)} | ${f(s.baseline_p50_ms.small_project_at_xl, 2)} |`,
      );
      lines.push(
        `| largest project, ${c.scale_issues} issues | ${f(s.app_p50_ms.big_project_at_xl, 2)} | ${f(s.app_rps.big_project_at_xl)} | |`,
      );
    }
    lines.push('', `App p50 change from the 1k figure: ${readFlatText(s, c)}.`, '');
  }
  if (pgr.explain) {
    lines.push(
      'PostgreSQL execution time of the statements (EXPLAIN ANALYZE, median of 5, parameters inlined):',
      '',
      '| Statement @ size | Execution ms | Planning ms | How issues are read |',
      '|---|---:|---:|---|',
    );
    for (const [name, e] of Object.entries(pgr.explain as Record<string, Explained>)) {
      lines.push(`| ${name} | ${e.execution_ms} | ${e.planning_ms} | ${e.issues_access.join('; ')} |`);
    }
    lines.push('');
  }

  if (a) {
    const row = (
      name: string,
      x: { p50_us: number; p99_us: number; mean_us: number; node_cpu_per_call_us?: number } | null | undefined,
    ) =>
      x
        ? `| ${name} | ${x.p50_us} | ${x.p99_us} | ${x.mean_us} | ${x.node_cpu_per_call_us ?? ''} |`
        : `| ${name} | skipped (no Redis) | | | |`;
    lines.push('### Authentication + rate limiting, in-process', '');
    lines.push(
      `Sequential calls with ${a.iterations} real PATs against the bench database (what src/app.ts does before routing: read credentials, start the credential epoch read, SHA-256 subject, admission, authenticate()):`,
      '',
      '| Step | p50 µs | p99 µs | mean µs | Node CPU µs/call |',
      '|---|---:|---:|---:|---:|',
      row(
        'credentials + rate limit + authenticate: PAT cache hit, memory limiter (default, one instance)',
        a.auth_plus_rate_limit,
      ),
      row('the same, PAT cache hit, Redis limiter + Redis epoch (several instances)', a.auth_plus_rate_limit_redis),
      row('the same, PAT_CACHE=off (one SQL lookup per call)', a.auth_plus_rate_limit_uncached ?? null),
      row('authenticate() alone, uncached', a.authenticate_only_uncached ?? a.authenticate_only),
      row('rate limit (subject + admit) alone, memory', a.rate_limit_only),
      row('rate limit alone, Redis (the round trip the epoch read shares)', a.rate_limit_only_redis),
      row('the bare PAT lookup SQL over pg (floor of the uncached path)', a.bare_pat_lookup_sql_over_pg),
      '',
    );
  }

  if (pgr.layers) {
    lines.push('### Where the time goes, layer by layer (in-process, sequential)', '');
    lines.push(
      'Each row adds one layer of the app on top of the row above it, on the same database, one call at a time in this process. CPU µs is what limits throughput when the server is CPU-bound (it is, under load); wall µs includes database round trips.',
      '',
      ...layerTable(pgr.layers),
      '',
    );
  }

  if (pgr.response_comparison) {
    lines.push(
      '### Same answers',
      '',
      '| Workload | Status app / baseline | Bytes app / baseline | Byte-identical | Differences |',
      '|---|---|---|---|---|',
    );
    for (const [id, cmp] of Object.entries(pgr.response_comparison as Record<string, Comparison>)) {
      lines.push(
        `| ${LABELS[id] ?? id} | ${cmp.status.join(' / ')} | ${cmp.bytes.join(' / ')} | ${cmp.bytes_equal ? 'yes' : 'no'} | ${cmp.differences.length ? cmp.differences.slice(0, 3).join('; ').replace(/\|/g, '\\|') : 'none (same keys, order, types and values)'} |`,
      );
    }
    lines.push(
      '',
      'For (b) the two creates necessarily differ in id, number (so key) and times; everything else must match.',
      '',
    );
  }
  if (pgr.sql_drift) {
    const drift = Object.entries(pgr.sql_drift)
      .filter(([, v]) => v)
      .map(([k]) => k);
    lines.push(
      `SQL drift check (the app's statements vs the copies in bench/lib/baseline-sql.ts): ${drift.length ? `**changed for ${drift.join(', ')}**` : 'identical for every REST workload'}. The statements are listed in report.json (postgres.sql).`,
      '',
    );
  }
  if (pgr.issue_count_check) {
    lines.push(
      `issue_count check after all creates: ${pgr.issue_count_check.mismatches.length ? `**mismatch** ${JSON.stringify(pgr.issue_count_check.mismatches)}` : "every project's issue_count equals its row count and highest number"}.`,
      '',
    );
  }

  if (report.pglite?.summary) {
    lines.push('## PGlite (embedded)', '');
    lines.push(
      ...summaryTable(report.pglite.summary, undefined, baselineStatements(report.runs, 'pglite'), 'pglite'),
      '',
    );
    if (commonTable(report.pglite.summary).length) lines.push(...commonTable(report.pglite.summary), '');
    lines.push(
      'One process per data directory: the app, the baseline (same SQL through PGlite directly) and the common stack each run on their own copy of the seeded directory, all three at once, and their runs interleave as on PostgreSQL. ' +
        'The database runs inside the server process, so server CPU includes the database.',
      '',
    );
    if (report.pglite.issue_count_check) {
      lines.push(
        `issue_count check: ${report.pglite.issue_count_check.mismatches.length ? `**mismatch** ${JSON.stringify(report.pglite.issue_count_check.mismatches)}` : 'consistent'}.`,
        '',
      );
    }
  }

  const profiles = pgr.profiles as Record<string, ProfileSummary> | undefined;
  if (profiles && Object.keys(profiles).length) {
    lines.push('## CPU profiles of the app (PostgreSQL, under load)', '');
    lines.push(
      `Missed targets: ${pgr.missed_targets.length ? pgr.missed_targets.join(', ') : 'none'}. Profiles in bench/results/profiles/ (open in Chrome DevTools or speedscope); self time over the loaded window only.`,
      '',
    );
    for (const [id, p] of Object.entries(profiles)) {
      lines.push(
        `### ${LABELS[id] ?? id} — ${p.load ? `${f(p.load.rps)} req/s under the profiler, ` : ''}${p.total_ms} ms busy`,
        '',
      );
      lines.push('| Package / area | Self % |', '|---|---:|');
      for (const row of p.by_package.slice(0, 12)) lines.push(`| ${row.package} | ${row.percent} |`);
      lines.push('', '| Function | Where | Self % |', '|---|---|---:|');
      for (const row of p.top_functions.slice(0, 12))
        lines.push(`| ${row.function.replace(/\|/g, '\\|')} | ${row.where} | ${row.percent} |`);
      lines.push('');
    }
  }

  lines.push(
    '## Every run',
    '',
    '| Target | Phase | Workload | Server | Round | req/s | p50 ms | p99 ms | non-2xx | Server CPU µs/req | DB CPU µs/req | Other processes (cores) |',
    '|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const r of report.runs) {
    lines.push(
      `| ${r.target} | ${r.phase} | ${r.workload} | ${r.server} | ${r.round} | ${f(r.result.rps)} | ${f(r.result.p50_ms, 2)} | ${f(r.result.p99_ms, 2)} | ${r.result.non2xx + r.result.errors} | ${f(r.server_cpu_us_per_req)} | ${f(r.db_cpu_us_per_req)} | ${r.foreign_cores} |`,
    );
  }
  lines.push('', "Busy processes other than the benchmark's own (sampled for 1 s):", '');
  for (const sample of m.busy_processes) {
    lines.push(
      `- ${sample.at}: ${sample.processes.length ? sample.processes.map((p: Any) => `${p.cpu_percent}% ${p.command}`).join('; ') : 'none above 5%'}`,
    );
  }
  return lines.join('\n');
}

const START = '<!-- bench:generated:start (written by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:generated:end -->';

function summaryBlock(report: Any): string {
  const m = report.machine;
  const pgr = report.postgres ?? {};
  const lines = [
    START,
    `Last run: ${report.generated_at}, ${report.wall_seconds} s, \`npm run bench\` with ${report.config.issues} issues, ${report.config.connections} connections, ${report.config.duration_s} s runs.`,
    '',
    `Machine: ${m.cpus} cores (${m.model}), ${m.memory_gb} GB, Node ${m.node}, ${m.platform}; ${m.taskset ? 'servers on core 0, load generator on core 1 (taskset), PostgreSQL unpinned' : 'no pinning'}. ` +
      `Other processes: median ${m.median_foreign_cores_during_runs} cores busy during the runs, load average ${m.loadavg_before.join('/')} before and ${m.loadavg_after.join('/')} after — ` +
      `**${m.shared ? "run while the machine was shared (other engineers' test runs)" : 'machine otherwise idle'}**.`,
    '',
  ];
  if (pgr.summary)
    lines.push(
      'PostgreSQL:',
      '',
      ...summaryTable(pgr.summary, pgr.sql, baselineStatements(report.runs, 'postgres'), 'postgres'),
      '',
    );
  if (pgr.summary && commonTable(pgr.summary).length)
    lines.push(
      'Against the common stack (Fastify + Prisma, bench/common-stack-server.ts):',
      '',
      ...commonTable(pgr.summary),
      '',
    );
  const a = pgr.auth_rate_limit;
  const s = pgr.scaling;
  if (a)
    lines.push(
      `Auth + rate limiting in-process: p50 ${a.auth_plus_rate_limit.p50_us} µs with the PAT cache (Redis limiter + epoch: ${a.auth_plus_rate_limit_redis ? `${a.auth_plus_rate_limit_redis.p50_us} µs` : 'not measured'}; PAT_CACHE=off: ${a.auth_plus_rate_limit_uncached?.p50_us ?? '—'} µs; bare PAT lookup over pg ${a.bare_pat_lookup_sql_over_pg.p50_us} µs; rate limit alone ${a.rate_limit_only.p50_us} µs; Node CPU ${a.node_cpu_per_call_us} µs per call).${a.p50_us_per_process ? ` The median of ${a.p50_us_per_process.length} fresh processes on the servers' core, whose p50s were ${a.p50_us_per_process.join(' / ')} µs.` : ''}`,
    );
  if (s)
    lines.push(
      `REST read p50 from 1k issues: ${readFlatText(s, report.config)}; each size in a database of its own, measured interleaved.`,
    );
  if (pgr.missed_targets)
    lines.push(`Missed targets on PostgreSQL: ${pgr.missed_targets.length ? pgr.missed_targets.join(', ') : 'none'}.`);
  if (pgr.layers)
    lines.push(
      '',
      'CPU per call, layer by layer, in process and one call at a time (each row adds one layer to the row above; report.md explains them):',
      '',
      ...layerTable(pgr.layers),
    );
  if (report.pglite?.summary) {
    lines.push(
      '',
      'PGlite:',
      '',
      ...summaryTable(report.pglite.summary, undefined, baselineStatements(report.runs, 'pglite'), 'pglite'),
    );
    const missed = missedRatios('pglite', report.pglite.summary);
    lines.push('', `Missed targets on PGlite: ${missed.length ? missed.join(', ') : 'none'}.`);
    const common = commonTable(report.pglite.summary);
    if (common.length) lines.push('', 'PGlite against the common stack:', '', ...common);
  }
  lines.push('', 'Full report: bench/results/report.md and report.json (not committed).', END);
  return lines.join('\n');
}

const LAYER_NAMES: Record<string, string> = {
  raw_pg_query_and_json: 'raw pg: the same SQL + JSON (the baseline without HTTP)',
  raw_pg_hand_written_sql_and_json: 'raw pg: the hand-written tree SQL + JSON',
  prisma_generated_sql_over_raw_pg:
    "raw pg: the app's second statement (the Project.issues pages, after Prisma's memberships statement) + JSON",
  prisma_findMany: 'Prisma findMany (same rows; what the app sent before DirectSql)',
  prisma_findUnique: 'Prisma findUniqueOrThrow (what the app sent before DirectSql)',
  direct_sql: 'the schema operation over DirectSql (src/db/direct-sql.ts)',
  direct_sql_statement: 'DirectSql: the same statement (what the app sends)',
  raw_pg_statement: 'raw pg: the one create statement (counter, member check, insert)',
  prisma_raw_statement: 'Prisma: the same statement through $queryRawUnsafe (what the app sent before)',
  rest_handler_operation: 'REST router (src/rest/router.ts): declared route calling the schema operation, JSON',
  graphql_execute_pothos_prisma:
    "graphql-js execute() over the Pothos schema (yoga's executor walks the document the same way)",
  graphql_compiled_pothos_prisma:
    'the same query compiled by graphql-jit (what the app runs from the second request of a document)',
  router_no_auth: 'itty-router + handler, no auth (bench/app-noauth)',
  yoga_no_auth: 'graphql-yoga + the compiled query, no auth (bench/app-noauth)',
  full_app_fetch: 'app.fetch: + rate limit + PAT authentication + routing',
};

/** CPU and wall time per call of each layer of each workload (bench/lib/inprocess.ts layerCosts). */
function layerTable(layers: Record<string, Record<string, { cpu_us: number; p50_us: number }>>): string[] {
  const lines = ['| Workload | Layer | CPU µs/call | Wall p50 µs |', '|---|---|---:|---:|'];
  for (const [id, rows] of Object.entries(layers)) {
    for (const [name, cost] of Object.entries(rows))
      lines.push(`| ${LABELS[id] ?? id} | ${LAYER_NAMES[name] ?? name} | ${f(cost.cpu_us)} | ${f(cost.p50_us)} |`);
  }
  return lines;
}

/** The read-scaling comparisons: the app's p50 change from the 1k read, the baseline's beside it. */
function readFlatText(s: Any, c: Any): string {
  const at = (issues: number, same: number | null, largest: number | null, baseline: number | null) =>
    `to ${issues} issues ${signed(same)} on the same 100-issue project, ${signed(largest)} on the largest project (the baseline ${signed(baseline)} on the same project)`;
  const parts = [
    at(
      c.issues,
      s.app_p50_change_small_project,
      s.app_p50_change_big_project_vs_1k,
      s.baseline_p50_change_small_project,
    ),
  ];
  if (c.scale_issues > 0)
    parts.push(
      at(
        c.scale_issues,
        s.app_p50_change_small_project_xl,
        s.app_p50_change_big_project_xl_vs_1k,
        s.baseline_p50_change_small_project_xl,
      ),
    );
  return parts.join('; ');
}

export function writeReports(report: Any, resultsDir: string, summaryPath: string): string {
  writeFileSync(join(resultsDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = renderMarkdown(report);
  writeFileSync(join(resultsDir, 'report.md'), `${md}\n`);
  const block = summaryBlock(report);
  const existing = existsSync(summaryPath)
    ? readFileSync(summaryPath, 'utf8')
    : `# Benchmark summary\n\n${START}\n${END}\n`;
  const updated =
    existing.includes(START) && existing.includes(END)
      ? existing.slice(0, existing.indexOf(START)) + block + existing.slice(existing.indexOf(END) + END.length)
      : `${existing.trimEnd()}\n\n${block}\n`;
  writeFileSync(summaryPath, updated);
  return md;
}
