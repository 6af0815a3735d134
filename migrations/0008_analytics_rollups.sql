CREATE TABLE "campaign_rollups" (
	"app_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"read" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "campaign_rollups_app_id_campaign_id_pk" PRIMARY KEY("app_id","campaign_id")
);
--> statement-breakpoint
CREATE TABLE "contact_ranges" (
	"app_id" uuid NOT NULL,
	"user_phone" text NOT NULL,
	"first_seen" timestamp with time zone NOT NULL,
	"last_seen" timestamp with time zone NOT NULL,
	CONSTRAINT "contact_ranges_app_id_user_phone_pk" PRIMARY KEY("app_id","user_phone")
);
--> statement-breakpoint
CREATE TABLE "contact_rollups" (
	"app_id" uuid NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"contacts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "contact_rollups_app_id_bucket_start_pk" PRIMARY KEY("app_id","bucket_start")
);
--> statement-breakpoint
CREATE TABLE "message_rollups" (
	"app_id" uuid NOT NULL,
	"bucket_start" timestamp with time zone NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"read" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "message_rollups_app_id_bucket_start_pk" PRIMARY KEY("app_id","bucket_start")
);
--> statement-breakpoint
ALTER TABLE "campaign_rollups" ADD CONSTRAINT "campaign_rollups_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_ranges" ADD CONSTRAINT "contact_ranges_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_rollups" ADD CONSTRAINT "contact_rollups_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_rollups" ADD CONSTRAINT "message_rollups_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_ranges_app_last_idx" ON "contact_ranges" USING btree ("app_id","last_seen","first_seen");--> statement-breakpoint
CREATE INDEX "messages_app_outbound_phone_idx" ON "messages" USING btree ("app_id","user_phone","created_at") WHERE "messages"."direction" = 'outbound';