CREATE TABLE "agents" (
	"app_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"timezone" text NOT NULL,
	"working_hours" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_app_id_id_pk" PRIMARY KEY("app_id","id")
);
--> statement-breakpoint
CREATE TABLE "availability_exceptions" (
	"app_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "availability_exceptions_app_id_id_pk" PRIMARY KEY("app_id","id"),
	CONSTRAINT "availability_exceptions_kind" CHECK ("availability_exceptions"."kind" in ('blocked', 'available_extra')),
	CONSTRAINT "availability_exceptions_range" CHECK ("availability_exceptions"."end_at" > "availability_exceptions"."start_at")
);
--> statement-breakpoint
CREATE TABLE "dnd_windows" (
	"app_id" uuid NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dnd_windows_app_id_id_pk" PRIMARY KEY("app_id","id"),
	CONSTRAINT "dnd_windows_range" CHECK ("dnd_windows"."end_at" > "dnd_windows"."start_at")
);
--> statement-breakpoint
CREATE TABLE "scheduled_call_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "scheduled_call_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"app_id" uuid NOT NULL,
	"call_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scheduled_call_events_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
CREATE TABLE "scheduled_call_reminders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"call_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scheduled_call_reminders_status" CHECK ("scheduled_call_reminders"."status" in ('pending', 'sent', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "scheduled_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"app_id" uuid NOT NULL,
	"assigned_agent_id" uuid NOT NULL,
	"booking_source" text NOT NULL,
	"guest_name" text NOT NULL,
	"guest_phone" text,
	"guest_email" text,
	"guest_timezone" text NOT NULL,
	"guest_intake_notes" text,
	"scheduled_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"duration_minutes" integer NOT NULL,
	"app_timezone" text NOT NULL,
	"status" text NOT NULL,
	"cancelled_at" timestamp with time zone,
	"cancellation_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scheduled_calls_status" CHECK ("scheduled_calls"."status" in ('scheduled', 'cancelled', 'completed', 'no_show')),
	CONSTRAINT "scheduled_calls_duration" CHECK ("scheduled_calls"."duration_minutes" > 0),
	CONSTRAINT "scheduled_calls_ends_at" CHECK ("scheduled_calls"."ends_at" - "scheduled_calls"."scheduled_at" = make_interval(mins => "scheduled_calls"."duration_minutes"))
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "availability_exceptions" ADD CONSTRAINT "availability_exceptions_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "availability_exceptions" ADD CONSTRAINT "availability_exceptions_agent_fk" FOREIGN KEY ("app_id","agent_id") REFERENCES "public"."agents"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dnd_windows" ADD CONSTRAINT "dnd_windows_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dnd_windows" ADD CONSTRAINT "dnd_windows_agent_fk" FOREIGN KEY ("app_id","agent_id") REFERENCES "public"."agents"("app_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_call_events" ADD CONSTRAINT "scheduled_call_events_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_call_events" ADD CONSTRAINT "scheduled_call_events_call_id_scheduled_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."scheduled_calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_call_reminders" ADD CONSTRAINT "scheduled_call_reminders_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_call_reminders" ADD CONSTRAINT "scheduled_call_reminders_call_id_scheduled_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."scheduled_calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_agent_fk" FOREIGN KEY ("app_id","assigned_agent_id") REFERENCES "public"."agents"("app_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "availability_exceptions_agent_end_idx" ON "availability_exceptions" USING btree ("app_id","agent_id","end_at");--> statement-breakpoint
CREATE INDEX "dnd_windows_agent_end_idx" ON "dnd_windows" USING btree ("app_id","agent_id","end_at");--> statement-breakpoint
CREATE INDEX "scheduled_call_events_call_idx" ON "scheduled_call_events" USING btree ("call_id","seq");--> statement-breakpoint
CREATE INDEX "scheduled_call_events_app_seq_idx" ON "scheduled_call_events" USING btree ("app_id","seq");--> statement-breakpoint
CREATE INDEX "scheduled_call_reminders_call_idx" ON "scheduled_call_reminders" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "scheduled_call_reminders_due_idx" ON "scheduled_call_reminders" USING btree ("due_at") WHERE "scheduled_call_reminders"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "scheduled_calls_app_at_idx" ON "scheduled_calls" USING btree ("app_id","scheduled_at","id");--> statement-breakpoint
CREATE INDEX "scheduled_calls_agent_at_idx" ON "scheduled_calls" USING btree ("app_id","assigned_agent_id","scheduled_at");