-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "subject_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "actor_id" UUID,
    "via" TEXT NOT NULL,
    "via_id" TEXT,
    "changes" JSONB NOT NULL,
    "to_status" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");

-- CreateIndex
CREATE INDEX "events_org_id_subject_id_seq_idx" ON "events"("org_id", "subject_id", "seq" DESC);

-- CreateIndex
CREATE INDEX "events_org_id_to_status_created_at_idx" ON "events"("org_id", "to_status", "created_at");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
