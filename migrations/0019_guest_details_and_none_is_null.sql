ALTER TABLE "scheduled_calls" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD COLUMN "answers" jsonb;--> statement-breakpoint
CREATE INDEX "scheduled_calls_app_guest_email_idx" ON "scheduled_calls" USING btree ("app_id",lower("guest_email"),"scheduled_at","id");--> statement-breakpoint
CREATE INDEX "scheduled_calls_app_guest_phone_idx" ON "scheduled_calls" USING btree ("app_id",regexp_replace("guest_phone", '[^0-9]', '', 'g'),"scheduled_at","id");--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_metadata_object" CHECK (jsonb_typeof("scheduled_calls"."metadata") = 'object');--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_answers_array" CHECK (jsonb_typeof("scheduled_calls"."answers") = 'array');--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "provider_from" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "provider_to" DROP NOT NULL;--> statement-breakpoint
-- None was stored as '': it becomes null before the checks that keep it so.
UPDATE "messages" SET "provider_from" = NULLIF("provider_from", ''), "provider_to" = NULLIF("provider_to", '')
  WHERE "provider_from" = '' OR "provider_to" = '';--> statement-breakpoint
UPDATE "scheduled_calls" SET "cancellation_reason" = NULL WHERE "cancellation_reason" = '';--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_provider_from_not_empty" CHECK ("messages"."provider_from" <> '');--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_provider_to_not_empty" CHECK ("messages"."provider_to" <> '');--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_cancellation_reason_not_empty" CHECK ("scheduled_calls"."cancellation_reason" <> '');