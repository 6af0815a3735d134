ALTER TABLE "scheduled_calls" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD COLUMN "answers" jsonb;--> statement-breakpoint
CREATE INDEX "scheduled_calls_app_guest_email_idx" ON "scheduled_calls" USING btree ("app_id",lower("guest_email"),"scheduled_at","id");--> statement-breakpoint
CREATE INDEX "scheduled_calls_app_guest_phone_idx" ON "scheduled_calls" USING btree ("app_id",regexp_replace("guest_phone", '[^0-9]', '', 'g'),"scheduled_at","id");--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_metadata_object" CHECK (jsonb_typeof("scheduled_calls"."metadata") = 'object');--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_answers_array" CHECK (jsonb_typeof("scheduled_calls"."answers") = 'array');