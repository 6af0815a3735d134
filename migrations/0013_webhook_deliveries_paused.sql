-- The worker's claim left the deliveries of a disabled subscription (paused, or after a 410) in
-- its due index, so every poll scanned all those waiting and probed their subscription: a cost
-- that grew with the backlog. `paused` marks them (kept by the transaction that changes the
-- subscription's status) and the due index leaves them out. Backfill: the pending deliveries of
-- subscriptions disabled now.
ALTER TABLE "webhook_deliveries" ADD COLUMN "paused" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "webhook_deliveries" AS "d" SET "paused" = true
  FROM "webhook_subscriptions" AS "s"
  WHERE "s"."id" = "d"."subscription_id" AND "s"."status" <> 'active' AND "d"."status" = 'pending';--> statement-breakpoint
DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending' and not "webhook_deliveries"."paused";
