-- CreateTable
CREATE TABLE "issue_counts" (
    "id" BIGSERIAL NOT NULL,
    "org_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "priority" TEXT NOT NULL,
    "assignee_id" UUID,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_counts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_week_counts" (
    "org_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "week" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_week_counts_pkey" PRIMARY KEY ("org_id","project_id","week")
);

-- CreateTable
CREATE TABLE "issue_completions" (
    "issue_id" UUID NOT NULL,
    "week" TIMESTAMPTZ(3) NOT NULL,
    "org_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,

    CONSTRAINT "issue_completions_pkey" PRIMARY KEY ("issue_id","week")
);

-- CreateIndex
CREATE UNIQUE INDEX "issue_counts_org_id_project_id_status_priority_assignee_id_key" ON "issue_counts"("org_id", "project_id", "status", "priority", "assignee_id") NULLS NOT DISTINCT;

-- CreateIndex
CREATE INDEX "issue_completions_org_id_week_project_id_idx" ON "issue_completions"("org_id", "week", "project_id");

-- AddForeignKey
ALTER TABLE "issue_completions" ADD CONSTRAINT "issue_completions_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The counts follow every change of `issues` (prisma/schema.prisma: IssueCount, IssueWeekCount).
-- Statement-level triggers with transition tables: a bulk insert of 100,000 issues adds one
-- grouped upsert, not 100,000. issue_counts_apply is the one place the rule is written; the
-- three triggers only hand it their rows, each with +1 (new) or -1 (old).
CREATE FUNCTION issue_counts_apply(
  org_ids uuid[], project_ids uuid[], statuses text[], priorities text[], assignee_ids uuid[], created_ats timestamptz[], deltas int[]
) RETURNS void LANGUAGE sql AS $$
  -- Rows are changed in key order (ORDER BY): two statements that move issues between the same
  -- groups in opposite directions lock the group rows in the same order, so they cannot deadlock.
  INSERT INTO issue_counts AS c (org_id, project_id, status, priority, assignee_id, count)
  SELECT d.org_id, d.project_id, d.status, d.priority, d.assignee_id, sum(d.delta)
    FROM unnest(org_ids, project_ids, statuses, priorities, assignee_ids, deltas) AS d(org_id, project_id, status, priority, assignee_id, delta)
   GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.delta) <> 0
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (org_id, project_id, status, priority, assignee_id) DO UPDATE SET count = c.count + EXCLUDED.count;

  INSERT INTO issue_week_counts AS w (org_id, project_id, week, count)
  SELECT d.org_id, d.project_id, date_trunc('week', d.created_at, 'UTC'), sum(d.delta)
    FROM unnest(org_ids, project_ids, created_ats, deltas) AS d(org_id, project_id, created_at, delta)
   GROUP BY 1, 2, 3 HAVING sum(d.delta) <> 0
   ORDER BY 1, 2, 3
  ON CONFLICT (org_id, project_id, week) DO UPDATE SET count = w.count + EXCLUDED.count;

  -- A group that reached zero loses its row (this transaction holds its lock already): the tables
  -- hold only groups with issues, and a deleted project or organization leaves nothing behind.
  DELETE FROM issue_counts c
   USING unnest(org_ids, project_ids, statuses, priorities, assignee_ids) AS d(org_id, project_id, status, priority, assignee_id)
   WHERE c.count = 0 AND c.org_id = d.org_id AND c.project_id = d.project_id AND c.status = d.status
     AND c.priority = d.priority AND c.assignee_id IS NOT DISTINCT FROM d.assignee_id;

  DELETE FROM issue_week_counts w
   USING unnest(org_ids, project_ids, created_ats) AS d(org_id, project_id, created_at)
   WHERE w.count = 0 AND w.org_id = d.org_id AND w.project_id = d.project_id AND w.week = date_trunc('week', d.created_at, 'UTC');
$$;

CREATE FUNCTION issue_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM issue_counts_apply(array_agg(org_id), array_agg(project_id), array_agg(status), array_agg(priority),
                             array_agg(assignee_id), array_agg(created_at), array_agg(1))
     FROM new_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION issue_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An update of other columns (a title, a description) nets to zero in every group: nothing is written.
  PERFORM issue_counts_apply(array_agg(org_id), array_agg(project_id), array_agg(status), array_agg(priority),
                             array_agg(assignee_id), array_agg(created_at), array_agg(delta))
     FROM (SELECT org_id, project_id, status, priority, assignee_id, created_at, -1 AS delta FROM old_rows
           UNION ALL
           SELECT org_id, project_id, status, priority, assignee_id, created_at, 1 FROM new_rows) AS changed;
  RETURN NULL;
END $$;

CREATE FUNCTION issue_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM issue_counts_apply(array_agg(org_id), array_agg(project_id), array_agg(status), array_agg(priority),
                             array_agg(assignee_id), array_agg(created_at), array_agg(-1))
     FROM old_rows;
  RETURN NULL;
END $$;

CREATE TRIGGER issue_counts_insert AFTER INSERT ON issues
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_after_insert();
CREATE TRIGGER issue_counts_update AFTER UPDATE ON issues
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_after_update();
CREATE TRIGGER issue_counts_delete AFTER DELETE ON issues
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_counts_after_delete();

-- The issues that exist already.
INSERT INTO issue_counts (org_id, project_id, status, priority, assignee_id, count)
SELECT org_id, project_id, status, priority, assignee_id, count(*) FROM issues GROUP BY 1, 2, 3, 4, 5;
INSERT INTO issue_week_counts (org_id, project_id, week, count)
SELECT org_id, project_id, date_trunc('week', created_at, 'UTC'), count(*) FROM issues GROUP BY 1, 2, 3;

-- The weeks of completion follow the history: a history row that moved an issue to Done
-- (to_status, src/events/record.ts; 'Done' is COMPLETED_STATUS of src/schema/issue-aggregates.ts)
-- marks its issue completed in that week, once. The issue's deletion takes its weeks along.
CREATE FUNCTION issue_completions_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO issue_completions (issue_id, week, org_id, project_id)
  SELECT DISTINCT e.subject_id, date_trunc('week', e.created_at, 'UTC'), e.org_id, e.project_id
    FROM new_rows e
   WHERE e.to_status = 'Done' AND EXISTS (SELECT 1 FROM issues i WHERE i.id = e.subject_id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER issue_completions_insert AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION issue_completions_after_insert();

INSERT INTO issue_completions (issue_id, week, org_id, project_id)
SELECT DISTINCT e.subject_id, date_trunc('week', e.created_at, 'UTC'), e.org_id, e.project_id
  FROM events e
 WHERE e.to_status = 'Done' AND EXISTS (SELECT 1 FROM issues i WHERE i.id = e.subject_id);

-- The dashboard counted completions from the history through this index; it reads
-- issue_completions now, and the index would only slow every history insert.
DROP INDEX "events_org_id_to_status_created_at_idx";
