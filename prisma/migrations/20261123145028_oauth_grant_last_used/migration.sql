-- AlterTable
ALTER TABLE "oauth_grants" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);
