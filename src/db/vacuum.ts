/**
 * VACUUM for the embedded database. PGlite runs PostgreSQL in one process with no background
 * workers, so nothing reclaims the dead row versions that updates and deletes leave behind
 * (autovacuum) nor refreshes the planner's statistics (autoanalyze): tables and indexes of a
 * busy service would only grow, and plans drift. The service vacuums on a schedule in embedded
 * mode (VacuumSchedule); `npm run admin -- vacuum` does it now, on either database.
 */
import { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';

/** A table's row versions as the statistics count them. */
export interface TableTuples {
  table: string;
  live: number;
  dead: number;
}

export interface VacuumedTable extends TableTuples {
  /** Dead row versions left after the VACUUM (ones some open transaction may still see). */
  deadAfter: number;
}

const TableTuplesRow = z.object({
  table: z.string(),
  live: z.coerce.number(),
  dead: z.coerce.number(),
});

/**
 * The statistics of the application's tables. Counters are flushed first: in PGlite the one
 * backend that writes is also the one reading, and it keeps its counts pending (and its
 * snapshot cached) otherwise.
 */
export async function tableTuples(prisma: PrismaClient): Promise<TableTuples[]> {
  await prisma.$executeRaw`SELECT pg_stat_force_next_flush()`;
  // A statement of its own: the flush happens at the end of the previous one.
  await prisma.$executeRaw`SELECT pg_stat_clear_snapshot()`;
  const rows = await prisma.$queryRaw`
    SELECT relname AS "table", n_live_tup AS live, n_dead_tup AS dead
    FROM pg_stat_user_tables WHERE schemaname = current_schema() ORDER BY relname`;
  return z.array(TableTuplesRow).parse(rows);
}

/**
 * Whether `t` needs a VACUUM by autovacuum's default rule: more dead row versions than
 * 50 + 20 % of its live ones.
 */
export function needsVacuum(t: TableTuples): boolean {
  return t.dead > 50 + 0.2 * t.live;
}

/**
 * VACUUM (ANALYZE) of every table that needs it (`all`: of every table), one table at a time:
 * on PGlite each one holds the only connection while it runs, so requests wait for one
 * table's vacuum at most, never for the whole pass.
 */
export async function vacuumTables(prisma: PrismaClient, { all = false } = {}): Promise<VacuumedTable[]> {
  const chosen = (await tableTuples(prisma)).filter((t) => all || needsVacuum(t));
  for (const { table } of chosen) {
    // The name comes from the catalog, never from input; quoted as an identifier all the same.
    await prisma.$executeRawUnsafe(`VACUUM (ANALYZE) "${table.replaceAll('"', '""')}"`);
  }
  const after = new Map((await tableTuples(prisma)).map((t) => [t.table, t.dead]));
  return chosen.map((t) => ({ ...t, deadAfter: after.get(t.table) ?? 0 }));
}

/**
 * Vacuums the embedded database every `intervalMs` (see vacuumTables), never two passes at
 * once; a failed pass is logged and the next one tries again.
 */
export class VacuumSchedule {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.pass(), intervalMs);
    this.timer.unref();
  }

  /** One pass now (the timer's, or a test's); resolves when it ends. */
  pass(): Promise<void> {
    this.running ??= this.vacuum().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async vacuum(): Promise<void> {
    const started = Date.now();
    try {
      const tables = await vacuumTables(this.prisma);
      if (tables.length === 0) return;
      this.logger.info(
        {
          tables: tables.map(({ table, dead, deadAfter }) => ({ table, dead, deadAfter })),
          ms: Date.now() - started,
        },
        'vacuumed the embedded database',
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'vacuum of the embedded database failed; the next pass tries again');
    }
  }
}
