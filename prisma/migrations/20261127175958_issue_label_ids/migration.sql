-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "label_ids" UUID[] DEFAULT ARRAY[]::UUID[];

-- issues.label_ids is a copy of the issue's issue_labels rows: a page of issues reads its labels
-- as a column instead of a subquery per row (src/schema/labels/issue-labels.ts). These triggers
-- keep it, whatever writes the rows (changeIssueLabels, a label's delete cascading to them, an
-- issue's), in the writing transaction: once per statement, over the issues it touched.
CREATE FUNCTION "issue_label_ids_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "issues" AS i
  SET "label_ids" = ARRAY(SELECT il."label_id" FROM "issue_labels" AS il WHERE il."issue_id" = i."id")
  WHERE i."id" IN (SELECT DISTINCT "issue_id" FROM "touched");
  RETURN NULL;
END
$$;

CREATE TRIGGER "issue_labels_inserted" AFTER INSERT ON "issue_labels"
  REFERENCING NEW TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "issue_label_ids_follow"();
CREATE TRIGGER "issue_labels_updated" AFTER UPDATE ON "issue_labels"
  REFERENCING NEW TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "issue_label_ids_follow"();
CREATE TRIGGER "issue_labels_deleted" AFTER DELETE ON "issue_labels"
  REFERENCING OLD TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "issue_label_ids_follow"();

-- The labels issues carry already.
UPDATE "issues" AS i
SET "label_ids" = l."ids"
FROM (SELECT "issue_id", array_agg("label_id") AS "ids" FROM "issue_labels" GROUP BY "issue_id") AS l
WHERE l."issue_id" = i."id";
