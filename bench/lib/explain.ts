// What PostgreSQL itself spends on the statements that matter: EXPLAIN (ANALYZE) with the
// parameters inlined, median of a few executions, and how the issues table is read.
import pg from 'pg';

export interface Explained {
  execution_ms: number;
  planning_ms: number;
  /** How the issues table is read (node type and index), and the rows those nodes produced. */
  issues_access: string[];
}

function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString('hex')}'::bytea`;
  return `'${String(value).replace(/'/g, "''")}'`;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

function issuesAccess(node: PlanNode, out: string[]) {
  if (node['Relation Name'] === 'issues') {
    const rows = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1);
    out.push(
      `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''} (${Math.round(rows)} rows)`,
    );
  }
  for (const child of node.Plans ?? []) issuesAccess(child, out);
}

export async function explain(
  url: string,
  statements: Record<string, { sql: string; params: unknown[] }>,
  runs = 5,
): Promise<Record<string, Explained>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const out: Record<string, Explained> = {};
  try {
    for (const [name, { sql, params }] of Object.entries(statements)) {
      const text = sql.replace(/\$(\d+)/g, (_m, n: string) => literal(params[Number(n) - 1]));
      const executions: number[] = [];
      const planning: number[] = [];
      let access: string[] = [];
      for (let i = 0; i < runs; i++) {
        const result = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`);
        const [plan] = result.rows[0]['QUERY PLAN'] as {
          Plan: PlanNode;
          'Execution Time': number;
          'Planning Time': number;
        }[];
        executions.push(plan!['Execution Time']);
        planning.push(plan!['Planning Time']);
        access = [];
        issuesAccess(plan!.Plan, access);
      }
      executions.sort((a, b) => a - b);
      planning.sort((a, b) => a - b);
      out[name] = {
        execution_ms: +executions[Math.floor(runs / 2)]!.toFixed(3),
        planning_ms: +planning[Math.floor(runs / 2)]!.toFixed(3),
        issues_access: [...new Set(access)],
      };
    }
  } finally {
    await client.end();
  }
  return out;
}
