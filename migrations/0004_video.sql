CREATE TABLE "video_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"status" text NOT NULL,
	"preset_id" text NOT NULL,
	"title" text,
	"description" text,
	"metadata" jsonb,
	"host_name" text,
	"guest_name" text,
	"provider_name" text,
	"provider_meeting_id" text,
	"conversation_id" text NOT NULL,
	"cc_host_origin" text NOT NULL,
	"cc_target_env" text NOT NULL,
	"cc_lang_tag" text NOT NULL,
	"cc_use_popup_auth" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "video_calls_app_id_key" UNIQUE("app_id","id"),
	CONSTRAINT "video_calls_provider_whole" CHECK (("video_calls"."provider_name" is null) = ("video_calls"."provider_meeting_id" is null))
);
--> statement-breakpoint
CREATE TABLE "video_participants" (
	"app_id" uuid NOT NULL,
	"call_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"provider_participant_id" text NOT NULL,
	"role" text NOT NULL,
	"name" text NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"left_at" timestamp with time zone,
	CONSTRAINT "video_participants_app_id_call_id_id_pk" PRIMARY KEY("app_id","call_id","id"),
	CONSTRAINT "video_participants_left_after_joined" CHECK ("video_participants"."left_at" is null or "video_participants"."left_at" >= "video_participants"."joined_at")
);
--> statement-breakpoint
CREATE TABLE "video_recordings" (
	"app_id" uuid NOT NULL,
	"call_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"provider_archive_id" text NOT NULL,
	"url" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "video_recordings_app_id_call_id_id_pk" PRIMARY KEY("app_id","call_id","id")
);
--> statement-breakpoint
ALTER TABLE "video_calls" ADD CONSTRAINT "video_calls_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_participants" ADD CONSTRAINT "video_participants_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_participants" ADD CONSTRAINT "video_participants_call_fk" FOREIGN KEY ("app_id","call_id") REFERENCES "public"."video_calls"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_recordings" ADD CONSTRAINT "video_recordings_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_recordings" ADD CONSTRAINT "video_recordings_call_fk" FOREIGN KEY ("app_id","call_id") REFERENCES "public"."video_calls"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "video_calls_app_created_idx" ON "video_calls" USING btree ("app_id","created_at","id");--> statement-breakpoint
CREATE INDEX "video_calls_app_status_created_idx" ON "video_calls" USING btree ("app_id","status","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "video_participants_connected_key" ON "video_participants" USING btree ("app_id","call_id","provider_participant_id") WHERE "video_participants"."left_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "video_recordings_archive_key" ON "video_recordings" USING btree ("app_id","call_id","provider_archive_id");