-- AlterTable
ALTER TABLE "invitations" ADD COLUMN     "email" TEXT,
ADD COLUMN     "revoked_at" TIMESTAMPTZ(3);
