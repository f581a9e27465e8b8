-- CreateIndex
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries"("webhook_id", "seq") WHERE (state = 'pending');
