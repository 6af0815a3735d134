-- No double booking, by construction: two `scheduled` calls of one agent
-- never overlap. Concurrent creates or reschedules into one slot: exactly one commits, the
-- others fail with exclusion_violation (23P01), which the service reports as 409 conflict.
-- btree_gist lets the GiST index compare the uuid columns with `=`.
CREATE EXTENSION IF NOT EXISTS btree_gist;
--> statement-breakpoint
ALTER TABLE "scheduled_calls" ADD CONSTRAINT "scheduled_calls_no_double_booking"
  EXCLUDE USING gist ("app_id" WITH =, "assigned_agent_id" WITH =, tstzrange("scheduled_at", "ends_at") WITH &&)
  WHERE ("status" = 'scheduled');
