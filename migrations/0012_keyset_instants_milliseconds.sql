-- Keyset instants kept to the millisecond (src/db/columns.ts): a cursor names its row's instant
-- as a JavaScript Date, so a row stored with microseconds by another writer was skipped by a page
-- walk. Values already stored with microseconds are rounded first, by UPDATE, so that the
-- analytics rollup triggers move any row that crosses a bucket boundary; the type change then
-- finds nothing to round. scheduled_at and ends_at share their sub-millisecond part (ends_at is
-- scheduled_at plus whole minutes), so both round alike and the ends_at check still holds;
-- rounding keeps the order of instants, so no two calls of an agent come to overlap.
UPDATE "messages" SET "created_at" = "created_at"::timestamptz(3) WHERE "created_at" <> "created_at"::timestamptz(3);--> statement-breakpoint
UPDATE "campaigns" SET "created_at" = "created_at"::timestamptz(3) WHERE "created_at" <> "created_at"::timestamptz(3);--> statement-breakpoint
UPDATE "templates" SET "created_at" = "created_at"::timestamptz(3) WHERE "created_at" <> "created_at"::timestamptz(3);--> statement-breakpoint
UPDATE "scheduled_calls" SET "scheduled_at" = "scheduled_at"::timestamptz(3), "ends_at" = "ends_at"::timestamptz(3)
  WHERE "scheduled_at" <> "scheduled_at"::timestamptz(3) OR "ends_at" <> "ends_at"::timestamptz(3);--> statement-breakpoint
UPDATE "video_calls" SET "created_at" = "created_at"::timestamptz(3) WHERE "created_at" <> "created_at"::timestamptz(3);--> statement-breakpoint
UPDATE "webhook_deliveries" SET "created_at" = "created_at"::timestamptz(3) WHERE "created_at" <> "created_at"::timestamptz(3);--> statement-breakpoint
ALTER TABLE "campaigns" ALTER COLUMN "created_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "created_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "templates" ALTER COLUMN "created_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "scheduled_calls" ALTER COLUMN "scheduled_at" SET DATA TYPE timestamp (3) with time zone, ALTER COLUMN "ends_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "video_calls" ALTER COLUMN "created_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "video_calls" ALTER COLUMN "created_at" SET DEFAULT now();--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "created_at" SET DATA TYPE timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "created_at" SET DEFAULT now();
