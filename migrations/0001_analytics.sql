CREATE TABLE "campaigns" (
	"app_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"total_contacts" integer DEFAULT 0 NOT NULL,
	"sent_count" integer DEFAULT 0 NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "campaigns_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"app_id" uuid NOT NULL,
	"id" text NOT NULL,
	"source" text NOT NULL,
	"destination" text NOT NULL,
	"provider_from" text NOT NULL,
	"provider_to" text NOT NULL,
	"channel" text NOT NULL,
	"direction" text NOT NULL,
	"message_type" text NOT NULL,
	"user_phone" text NOT NULL,
	"conversation_key" text NOT NULL,
	"provider_message_id" text NOT NULL,
	"status" text NOT NULL,
	"sent_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"read_at" timestamp with time zone,
	"error_message" text,
	"campaign_id" uuid,
	"cost" numeric(14, 6) DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "messages_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
CREATE TABLE "templates" (
	"app_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"language" text NOT NULL,
	"status" text NOT NULL,
	"header_type" text NOT NULL,
	"header_text" text NOT NULL,
	"body_text" text NOT NULL,
	"body_variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"footer_text" text NOT NULL,
	"buttons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"provider_template_id" text NOT NULL,
	"provider_status" text NOT NULL,
	"provider_rejection_reason" text,
	"provider_quality" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "templates_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "templates" ADD CONSTRAINT "templates_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_app_created_idx" ON "campaigns" USING btree ("app_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "campaigns_app_status_created_idx" ON "campaigns" USING btree ("app_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "campaigns_tags_idx" ON "campaigns" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "messages_app_created_idx" ON "messages" USING btree ("app_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "messages_app_status_created_idx" ON "messages" USING btree ("app_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "messages_app_direction_created_idx" ON "messages" USING btree ("app_id","direction","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "messages_app_campaign_idx" ON "messages" USING btree ("app_id","campaign_id");--> statement-breakpoint
CREATE INDEX "messages_app_phone_idx" ON "messages" USING btree ("app_id","user_phone");--> statement-breakpoint
CREATE INDEX "templates_app_created_idx" ON "templates" USING btree ("app_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);