-- Message search: case-insensitive substring over five fields. A trigram
-- GIN index serves ILIKE '%term%' on each column; the planner ORs the per-column bitmaps
-- and ANDs them with the app_id index. A custom migration because the extension must exist
-- before the index; drizzle-kit does not track this index, so it never proposes to drop it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_search_trgm_idx" ON "messages" USING gin (
  "user_phone" gin_trgm_ops,
  "provider_message_id" gin_trgm_ops,
  "conversation_key" gin_trgm_ops,
  "provider_from" gin_trgm_ops,
  "provider_to" gin_trgm_ops
);
