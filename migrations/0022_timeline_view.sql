-- A call's timeline becomes its slice of the app event log: events about the call (subject_id)
-- of the timeline's types, whose details are the timeline's payload.
ALTER TABLE "app_events" ADD COLUMN "subject_id" uuid;--> statement-breakpoint
ALTER TABLE "app_events" ADD COLUMN "details" jsonb;--> statement-breakpoint
-- Every scheduled_call.* event is about the call its resource is.
UPDATE "app_events" e SET "subject_id" = c."id"
FROM "scheduled_calls" c
WHERE e."type" LIKE 'scheduled_call.%' AND c."app_id" = e."app_id" AND c."id"::text = e."resource"->>'id';--> statement-breakpoint
-- Each timeline row and the log event written with it in the same transaction (its twin): same
-- call, type and time, the n-th of such rows on both sides paired in their own order.
CREATE TEMPORARY TABLE "timeline_twins" AS
WITH "timeline" AS (
  SELECT t."id", t."call_id", 'scheduled_call.' || t."event_type" AS "type", t."created_at",
    row_number() OVER (PARTITION BY t."call_id", t."event_type", t."created_at" ORDER BY t."seq") AS "n"
  FROM "scheduled_call_events" t
), "logged" AS (
  SELECT e."id", e."subject_id", e."type", e."occurred_at",
    row_number() OVER (PARTITION BY e."subject_id", e."type", e."occurred_at" ORDER BY e."seq") AS "n"
  FROM "app_events" e
  WHERE e."subject_id" IS NOT NULL
)
SELECT "timeline"."id" AS "timeline_id", "logged"."id" AS "log_id"
FROM "timeline" JOIN "logged"
  ON "logged"."subject_id" = "timeline"."call_id" AND "logged"."type" = "timeline"."type"
  AND "logged"."occurred_at" = "timeline"."created_at" AND "logged"."n" = "timeline"."n";--> statement-breakpoint
-- A twin takes its timeline row's payload as details.
UPDATE "app_events" e SET "details" = t."payload"
FROM "timeline_twins" w JOIN "scheduled_call_events" t ON t."id" = w."timeline_id"
WHERE e."id" = w."log_id";--> statement-breakpoint
-- Timeline rows without a twin (written before the log existed, by an import, or whose twin was
-- pruned) become log events with their own id, time and actor, and no resource (the call as it
-- was then is not known). Their seq is negative, in timeline order: before every logged event.
INSERT INTO "app_events" ("id", "seq", "app_id", "type", "actor_type", "actor_id", "resource", "subject_id", "details", "occurred_at")
OVERRIDING SYSTEM VALUE
SELECT t."id", t."seq" - (SELECT max(m."seq") FROM "scheduled_call_events" m) - 1, t."app_id", 'scheduled_call.' || t."event_type",
  t."actor_type", t."actor_id", NULL, t."call_id", t."payload", t."created_at"
FROM "scheduled_call_events" t
WHERE NOT EXISTS (SELECT 1 FROM "timeline_twins" w WHERE w."timeline_id" = t."id");--> statement-breakpoint
DROP TABLE "timeline_twins";--> statement-breakpoint
DROP TABLE "scheduled_call_events" CASCADE;--> statement-breakpoint
-- The old table's name and columns, as a view of the log, for ad-hoc SQL.
CREATE VIEW "scheduled_call_events" AS
SELECT "id", "seq", "app_id", "subject_id" AS "call_id", substr("type", length('scheduled_call.') + 1) AS "event_type",
  "actor_type", "actor_id", coalesce("details", '{}'::jsonb) AS "payload", "occurred_at" AS "created_at"
FROM "app_events"
WHERE "subject_id" IS NOT NULL
  AND "type" IN ('scheduled_call.created', 'scheduled_call.rescheduled', 'scheduled_call.assigned', 'scheduled_call.updated',
    'scheduled_call.cancelled', 'scheduled_call.completed', 'scheduled_call.no_show');--> statement-breakpoint
DROP INDEX "app_events_occurred_idx";--> statement-breakpoint
CREATE INDEX "app_events_subject_idx" ON "app_events" USING btree ("app_id","subject_id","seq") WHERE "app_events"."subject_id" is not null;--> statement-breakpoint
CREATE INDEX "app_events_prunable_idx" ON "app_events" USING btree ("occurred_at") WHERE "app_events"."subject_id" is null;
