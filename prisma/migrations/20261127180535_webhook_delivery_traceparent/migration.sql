-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "traceparent" TEXT;
