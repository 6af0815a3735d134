ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_previous_secret_idx" ON "webhook_subscriptions" USING btree ("previous_secret_expires_at") WHERE "webhook_subscriptions"."previous_secret_expires_at" is not null;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_previous_secret" CHECK (("webhook_subscriptions"."previous_secret" is null) = ("webhook_subscriptions"."previous_secret_expires_at" is null));