-- AlterTable
ALTER TABLE "webhooks" ADD COLUMN     "circuit_open_until" TIMESTAMPTZ(3),
ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0;
