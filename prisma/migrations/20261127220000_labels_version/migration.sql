-- AlterTable
ALTER TABLE "organizations" ADD COLUMN     "labels_version" INTEGER NOT NULL DEFAULT 0;

-- organizations.labels_version counts the changes of the organization's labels: a statement that
-- writes labels bumps it in the same transaction, so a statement that reads it with issues knows
-- whether the labels an instance keeps in memory are the ones its snapshot sees
-- (src/schema/labels/org-labels.ts). Once per statement, over the organizations it touched; it
-- wraps at int4's end (2^31 changes of one organization's labels).
CREATE FUNCTION "labels_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "organizations"
  SET "labels_version" = ("labels_version" + 1) % 2147483647
  WHERE "id" IN (SELECT DISTINCT "org_id" FROM "touched");
  RETURN NULL;
END
$$;

CREATE TRIGGER "labels_inserted" AFTER INSERT ON "labels"
  REFERENCING NEW TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "labels_version_bump"();
CREATE TRIGGER "labels_updated" AFTER UPDATE ON "labels"
  REFERENCING NEW TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "labels_version_bump"();
CREATE TRIGGER "labels_deleted" AFTER DELETE ON "labels"
  REFERENCING OLD TABLE AS "touched" FOR EACH STATEMENT EXECUTE FUNCTION "labels_version_bump"();
