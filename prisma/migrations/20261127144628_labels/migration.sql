-- CreateTable
CREATE TABLE "labels" (
    "id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "name_key" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "labels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_labels" (
    "issue_id" UUID NOT NULL,
    "label_id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_labels_pkey" PRIMARY KEY ("issue_id","label_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "labels_org_id_name_key_key" ON "labels"("org_id", "name_key");

-- CreateIndex
CREATE UNIQUE INDEX "labels_org_id_id_key" ON "labels"("org_id", "id");

-- CreateIndex
CREATE INDEX "issue_labels_label_id_issue_id_idx" ON "issue_labels"("label_id", "issue_id");

-- CreateIndex
CREATE UNIQUE INDEX "issues_org_id_id_key" ON "issues"("org_id", "id");

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_labels" ADD CONSTRAINT "issue_labels_org_id_issue_id_fkey" FOREIGN KEY ("org_id", "issue_id") REFERENCES "issues"("org_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_labels" ADD CONSTRAINT "issue_labels_org_id_label_id_fkey" FOREIGN KEY ("org_id", "label_id") REFERENCES "labels"("org_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
