CREATE TABLE "booking_policies" (
	"app_id" uuid PRIMARY KEY NOT NULL,
	"minimum_notice_minutes" integer DEFAULT 0 NOT NULL,
	"horizon_days" integer,
	"buffer_before_minutes" integer DEFAULT 0 NOT NULL,
	"buffer_after_minutes" integer DEFAULT 0 NOT NULL,
	"max_calls_per_day" integer,
	"max_calls_per_week" integer,
	"alignment_minutes" integer,
	"assignment" text DEFAULT 'least_busy' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "booking_policies_assignment" CHECK ("booking_policies"."assignment" in ('least_busy', 'round_robin'))
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "booking_policy" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "assignment_priority" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "assignment_weight" integer DEFAULT 100 NOT NULL;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD COLUMN "buffered_from" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD COLUMN "buffered_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "booking_policies" ADD CONSTRAINT "booking_policies_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_assignment_priority" CHECK ("agents"."assignment_priority" between 0 and 4);--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_assignment_weight" CHECK ("agents"."assignment_weight" between 1 and 1000);--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_buffered_range" CHECK (("scheduled_calls"."buffered_from" is null and "scheduled_calls"."buffered_until" is null) or ("scheduled_calls"."buffered_from" <= "scheduled_calls"."scheduled_at" and "scheduled_calls"."buffered_until" >= "scheduled_calls"."ends_at"));--> statement-breakpoint
-- Buffers hold by construction too: the ranges two `scheduled` calls of one agent keep (each
-- call with its buffers, or the call alone when it has none) never overlap. It implies the
-- constraint it replaces (a call's range lies inside its buffered range), so that one goes:
-- one GiST index per booking, not two. Concurrent bookings whose buffers would touch: exactly
-- one commits, the others fail with exclusion_violation (23P01), answered 409.
ALTER TABLE "scheduled_calls" DROP CONSTRAINT "scheduled_calls_no_double_booking";
--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_buffers_apart"
  EXCLUDE USING gist ("app_id" WITH =, "assigned_agent_id" WITH =,
    tstzrange(coalesce("buffered_from", "scheduled_at"), coalesce("buffered_until", "ends_at")) WITH &&)
  WHERE ("status" = 'scheduled');
