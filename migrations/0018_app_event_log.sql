CREATE TABLE "app_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "app_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_id" uuid NOT NULL,
	"type" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"resource" jsonb,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "app_events_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
ALTER TABLE "app_events" ADD CONSTRAINT "app_events_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_events_app_seq_idx" ON "app_events" USING btree ("app_id","seq");--> statement-breakpoint
CREATE INDEX "app_events_occurred_idx" ON "app_events" USING btree ("occurred_at");