import { afterEach, describe, expect, test } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { runAdminCommand } from '../../src/cli/admin-commands.js';
import { localEpoch } from '../../src/auth/credential-epoch.js';
import { testConfig } from '../../src/config.js';
import { needsVacuum, tableTuples, VacuumSchedule } from '../../src/db/vacuum.js';

// PGlite has no autovacuum: without the schedule (src/db/vacuum.ts) every update and delete
// leaves a dead row version behind for good. Dead tuples are read from pg_stat_user_tables.

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** An app on an embedded database of its own (the schedule belongs to the app that opened it), with the demo data. */
async function embeddedApp(vacuumIntervalMs: number) {
  const app = await createApp(testConfig({ databaseUrl: 'memory://', vacuumIntervalMs }));
  apps.push(app);
  const seed = await seedDemo(app.db.prisma);
  const owner = seed.users.find((u) => u.role === 'owner')!;
  const project = seed.orgs.find((o) => o.id === owner.org_id)!.projects[0]!;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.fetch(
      new Request(`${app.config.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return response;
  };
  /** What a busy day does to the issues table: created, edited again and again, some deleted. */
  async function churn(issues = 20, edits = 4) {
    for (let i = 0; i < issues; i++) {
      const { id } = (await (
        await call('POST', '/api/issues', { project_id: project.id, title: `Issue ${i}` })
      ).json()) as {
        id: string;
      };
      for (let e = 0; e < edits; e++) await call('PATCH', `/api/issues/${id}`, { title: `Issue ${i}, edit ${e}` });
      if (i % 4 === 0) await call('DELETE', `/api/issues/${id}`);
    }
  }
  const dead = async (table: string) => (await tableTuples(app.db.prisma)).find((t) => t.table === table)!.dead;
  return { app, churn, dead };
}

describe('VACUUM of the embedded database', () => {
  test('a pass of the schedule reclaims the dead row versions of the tables that need it, and leaves the others', async () => {
    const { app, churn, dead } = await embeddedApp(3_600_000);
    expect(app.vacuum).not.toBeNull();
    await churn();
    const before = await tableTuples(app.db.prisma);
    const issues = before.find((t) => t.table === 'issues')!;
    expect(issues.dead).toBeGreaterThan(50 + 0.2 * issues.live);
    const untouched = before.filter((t) => !needsVacuum(t)).map((t) => t.table);
    expect(untouched.length).toBeGreaterThan(0);

    await app.vacuum!.pass();

    const after = await tableTuples(app.db.prisma);
    for (const t of before.filter(needsVacuum)) expect(after.find((a) => a.table === t.table)!.dead, t.table).toBe(0);
    expect(await dead('issues')).toBe(0);
    // Live rows are all still there; VACUUM (ANALYZE) counted them again.
    expect(after.find((t) => t.table === 'issues')!.live).toBe(issues.live);
    const vacuumed = await app.db.prisma.$queryRaw<{ relname: string }[]>`
      SELECT relname FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL`;
    expect(vacuumed.map((r) => r.relname).sort()).toEqual(
      before
        .filter(needsVacuum)
        .map((t) => t.table)
        .sort(),
    );
  });

  test('on its timer, a schedule vacuums what the service left dead', async () => {
    const { app, churn, dead } = await embeddedApp(0);
    await churn(10, 6);
    const issues = (await tableTuples(app.db.prisma)).find((t) => t.table === 'issues')!;
    expect(needsVacuum(issues)).toBe(true);
    // The schedule the app makes with VACUUM_INTERVAL_MINUTES, on a short interval; no pass is called here.
    const schedule = new VacuumSchedule(app.db.prisma, 100, app.logger);
    try {
      await expect.poll(() => dead('issues'), { timeout: 20_000, interval: 100 }).toBe(0);
    } finally {
      await schedule.stop();
    }
  });

  test('VACUUM_INTERVAL_MINUTES=0: no schedule; the admin command vacuums every table on demand', async () => {
    const { app, churn, dead } = await embeddedApp(0);
    expect(app.vacuum).toBeNull();
    await churn(8, 3);
    expect(await dead('issues')).toBeGreaterThan(0);
    const outcome = await runAdminCommand('vacuum', { all: true }, app.db.prisma, localEpoch, app.config);
    expect(outcome.code).toBe(0);
    const { vacuumed } = JSON.parse(outcome.stdout) as {
      vacuumed: { table: string; live_rows: number; dead_rows: number; dead_rows_after: number }[];
    };
    expect(vacuumed.map((t) => t.table)).toEqual((await tableTuples(app.db.prisma)).map((t) => t.table));
    expect(vacuumed.find((t) => t.table === 'issues')).toMatchObject({
      dead_rows: expect.any(Number),
      dead_rows_after: 0,
    });
    expect(vacuumed.find((t) => t.table === 'issues')!.dead_rows).toBeGreaterThan(0);
    expect(await dead('issues')).toBe(0);
  });
});
