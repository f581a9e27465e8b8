-- DropIndex
DROP INDEX "issues_org_id_idx";

-- CreateTable
CREATE TABLE "issue_statuses" (
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "issue_statuses_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "issue_priorities" (
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "issue_priorities_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "issue_statuses_position_key" ON "issue_statuses"("position");

-- CreateIndex
CREATE UNIQUE INDEX "issue_priorities_position_key" ON "issue_priorities"("position");

-- CreateIndex
CREATE INDEX "issues_org_id_created_at_id_idx" ON "issues"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "issues_org_id_updated_at_id_idx" ON "issues"("org_id", "updated_at" DESC, "id" DESC);

-- The workflow of src/schema/workflow.ts, in its order (a test checks they agree).
INSERT INTO "issue_statuses" ("name", "position") VALUES
    ('Backlog', 0), ('Todo', 1), ('In Progress', 2), ('In Review', 3), ('Done', 4), ('Canceled', 5);
INSERT INTO "issue_priorities" ("name", "position") VALUES
    ('urgent', 0), ('high', 1), ('medium', 2), ('low', 3), ('none', 4);

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_status_fkey" FOREIGN KEY ("status") REFERENCES "issue_statuses"("name") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_priority_fkey" FOREIGN KEY ("priority") REFERENCES "issue_priorities"("name") ON DELETE RESTRICT ON UPDATE CASCADE;
