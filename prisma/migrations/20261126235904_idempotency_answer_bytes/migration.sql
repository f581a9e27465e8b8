-- AlterTable
ALTER TABLE "idempotency_keys" ADD COLUMN     "bytes" INTEGER NOT NULL DEFAULT 0;
