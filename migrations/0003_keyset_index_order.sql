DROP INDEX "campaigns_app_created_idx";--> statement-breakpoint
DROP INDEX "campaigns_app_status_created_idx";--> statement-breakpoint
DROP INDEX "messages_app_created_idx";--> statement-breakpoint
DROP INDEX "messages_app_status_created_idx";--> statement-breakpoint
DROP INDEX "messages_app_direction_created_idx";--> statement-breakpoint
DROP INDEX "templates_app_created_idx";--> statement-breakpoint
CREATE INDEX "campaigns_app_created_idx" ON "campaigns" USING btree ("app_id","created_at","id");--> statement-breakpoint
CREATE INDEX "campaigns_app_status_created_idx" ON "campaigns" USING btree ("app_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_app_created_idx" ON "messages" USING btree ("app_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_app_status_created_idx" ON "messages" USING btree ("app_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_app_direction_created_idx" ON "messages" USING btree ("app_id","direction","created_at","id");--> statement-breakpoint
CREATE INDEX "templates_app_created_idx" ON "templates" USING btree ("app_id","created_at","id");