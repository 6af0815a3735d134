-- Analytics rollups and contact ranges (tables in analytics_rollups) kept exact by the database itself: every
-- writer of `messages` (import, seed, sends, inbound webhooks, psql) updates them with no code
-- of its own. Statement-level AFTER triggers read the transition tables, so a 5,000-row insert
-- costs one grouped upsert, not 5,000. Each statement turns its changed rows into signed deltas
-- (+1 for new rows, -1 for old rows: an UPDATE that moves a message to another bucket, status,
-- campaign or direction subtracts it there and adds it here; one that changes none of those
-- nets to zero and writes nothing), groups them, and adds them to the rollup rows in key order
-- (a fixed lock order: concurrent writers cannot deadlock on each other's rollup rows).
-- The funnel is the one of src/analytics/funnel.ts: outbound messages only;
-- sent = {sent, delivered, read}, delivered = {delivered, read}, read, failed; cost = sum.

-- No writer may change messages between the triggers appearing and the backfill below.
LOCK TABLE "messages" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint

-- The 15-minute bucket of an instant, on UTC quarter hours (src/analytics/rollups.ts: BUCKET).
CREATE OR REPLACE FUNCTION analytics_bucket(at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00') $$;--> statement-breakpoint

CREATE OR REPLACE FUNCTION analytics_rollups_apply() RETURNS trigger
LANGUAGE plpgsql
AS $fn$
DECLARE
  cols constant text := 'app_id, created_at, campaign_id, direction, status, cost FROM ';
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, ' || cols || 'new_rows'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, ' || cols || 'old_rows'
    ELSE 'SELECT 1 AS sign, ' || cols || 'new_rows UNION ALL SELECT -1 AS sign, ' || cols || 'old_rows'
  END;
  -- Outbound messages as contact_ranges sees them; an UPDATE that keeps a message's app, id,
  -- phone, created_at and direction (a status change) neither adds nor removes anything.
  contact_cols constant text := 'SELECT app_id, id, user_phone, created_at FROM %s WHERE direction = ''outbound''';
  added text := CASE TG_OP
    WHEN 'INSERT' THEN format(contact_cols, 'new_rows')
    WHEN 'DELETE' THEN NULL
    ELSE format(contact_cols, 'new_rows') || ' EXCEPT ' || format(contact_cols, 'old_rows')
  END;
  removed text := CASE TG_OP
    WHEN 'INSERT' THEN NULL
    WHEN 'DELETE' THEN format(contact_cols, 'old_rows')
    ELSE format(contact_cols, 'old_rows') || ' EXCEPT ' || format(contact_cols, 'new_rows')
  END;
BEGIN
  -- Rows of an app being deleted (ON DELETE CASCADE) are skipped: its rollups go with it.
  EXECUTE format($sql$
    WITH changed AS (%s),
    delta AS (
      SELECT c.app_id, analytics_bucket(c.created_at) AS bucket_start, c.campaign_id,
             c.sign * (c.status IN ('sent', 'delivered', 'read'))::int AS sent,
             c.sign * (c.status IN ('delivered', 'read'))::int AS delivered,
             c.sign * (c.status = 'read')::int AS read,
             c.sign * (c.status = 'failed')::int AS failed,
             c.sign * c.cost AS cost
      FROM changed c
      WHERE c.direction = 'outbound' AND c.app_id IN (SELECT id FROM apps)
    ),
    by_bucket AS (
      INSERT INTO message_rollups AS r (app_id, bucket_start, sent, delivered, read, failed, cost)
      SELECT app_id, bucket_start, sum(sent), sum(delivered), sum(read), sum(failed), sum(cost)
      FROM delta
      GROUP BY app_id, bucket_start
      HAVING sum(sent) <> 0 OR sum(delivered) <> 0 OR sum(read) <> 0 OR sum(failed) <> 0 OR sum(cost) <> 0
      ORDER BY app_id, bucket_start
      ON CONFLICT (app_id, bucket_start) DO UPDATE SET
        sent = r.sent + excluded.sent, delivered = r.delivered + excluded.delivered, read = r.read + excluded.read,
        failed = r.failed + excluded.failed, cost = r.cost + excluded.cost
      RETURNING 1
    )
    INSERT INTO campaign_rollups AS r (app_id, campaign_id, sent, delivered, read, failed, cost)
    SELECT app_id, campaign_id, sum(sent), sum(delivered), sum(read), sum(failed), sum(cost)
    FROM delta
    WHERE campaign_id IS NOT NULL
    GROUP BY app_id, campaign_id
    HAVING sum(sent) <> 0 OR sum(delivered) <> 0 OR sum(read) <> 0 OR sum(failed) <> 0 OR sum(cost) <> 0
    ORDER BY app_id, campaign_id
    ON CONFLICT (app_id, campaign_id) DO UPDATE SET
      sent = r.sent + excluded.sent, delivered = r.delivered + excluded.delivered, read = r.read + excluded.read,
      failed = r.failed + excluded.failed, cost = r.cost + excluded.cost
  $sql$, changed);

  -- A new outbound message can only widen its contact's range.
  IF added IS NOT NULL THEN
    EXECUTE format($sql$
      INSERT INTO contact_ranges AS c (app_id, user_phone, first_seen, last_seen)
      SELECT app_id, user_phone, min(created_at), max(created_at)
      FROM (%s) a
      WHERE app_id IN (SELECT id FROM apps)
      GROUP BY app_id, user_phone
      ORDER BY app_id, user_phone
      ON CONFLICT (app_id, user_phone) DO UPDATE SET
        first_seen = least(c.first_seen, excluded.first_seen), last_seen = greatest(c.last_seen, excluded.last_seen)
    $sql$, added);
  END IF;

  -- A removed one may have been the first or last: recompute those contacts from messages.
  -- Lock their rows first (key order) and recompute in a later statement, whose fresh snapshot
  -- (READ COMMITTED) sees every message a concurrent writer committed while we waited.
  IF removed IS NOT NULL THEN
    EXECUTE format($sql$
      SELECT count(*) FROM (
        SELECT 1 FROM contact_ranges c JOIN (SELECT DISTINCT app_id, user_phone FROM (%s) r0) r USING (app_id, user_phone)
        ORDER BY c.app_id, c.user_phone FOR UPDATE OF c
      ) locked
    $sql$, removed);
    EXECUTE format($sql$
      WITH r AS (SELECT DISTINCT app_id, user_phone FROM (%s) r0),
      seen AS (
        SELECT r.app_id, r.user_phone, s.first_seen, s.last_seen
        FROM r CROSS JOIN LATERAL (
          SELECT min(m.created_at) AS first_seen, max(m.created_at) AS last_seen FROM messages m
          WHERE m.app_id = r.app_id AND m.user_phone = r.user_phone AND m.direction = 'outbound'
        ) s
      ),
      kept AS (
        UPDATE contact_ranges c SET first_seen = seen.first_seen, last_seen = seen.last_seen
        FROM seen
        WHERE c.app_id = seen.app_id AND c.user_phone = seen.user_phone AND seen.first_seen IS NOT NULL
        RETURNING 1
      )
      DELETE FROM contact_ranges c USING seen
      WHERE c.app_id = seen.app_id AND c.user_phone = seen.user_phone AND seen.first_seen IS NULL
    $sql$, removed);
  END IF;
  RETURN NULL;
END
$fn$;--> statement-breakpoint

-- contact_rollups: contacts per bucket of their last_seen, kept by triggers on contact_ranges
-- (which the function above writes): +1 where a contact's last_seen is now, -1 where it was.
CREATE OR REPLACE FUNCTION analytics_contact_rollups_apply() RETURNS trigger
LANGUAGE plpgsql
AS $fn$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT 1 AS sign, app_id, last_seen FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT -1 AS sign, app_id, last_seen FROM old_rows'
    ELSE 'SELECT 1 AS sign, app_id, last_seen FROM new_rows UNION ALL SELECT -1 AS sign, app_id, last_seen FROM old_rows'
  END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO contact_rollups AS r (app_id, bucket_start, contacts)
    SELECT app_id, analytics_bucket(last_seen), sum(sign)
    FROM (%s) c
    WHERE app_id IN (SELECT id FROM apps)
    GROUP BY 1, 2
    HAVING sum(sign) <> 0
    ORDER BY 1, 2
    ON CONFLICT (app_id, bucket_start) DO UPDATE SET contacts = r.contacts + excluded.contacts
  $sql$, changed);
  RETURN NULL;
END
$fn$;--> statement-breakpoint

CREATE OR REPLACE FUNCTION analytics_rollups_truncate() RETURNS trigger
LANGUAGE plpgsql
AS $fn$
BEGIN
  DELETE FROM message_rollups;
  DELETE FROM campaign_rollups;
  DELETE FROM contact_ranges;
  DELETE FROM contact_rollups;
  RETURN NULL;
END
$fn$;--> statement-breakpoint

-- A trigger with transition tables fires on one event and takes no column list (PostgreSQL),
-- hence three; an UPDATE touching no rollup column nets to zero in the function.
CREATE TRIGGER messages_rollups_insert AFTER INSERT ON "messages"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_rollups_apply();--> statement-breakpoint
CREATE TRIGGER messages_rollups_update AFTER UPDATE ON "messages"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_rollups_apply();--> statement-breakpoint
CREATE TRIGGER messages_rollups_delete AFTER DELETE ON "messages"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_rollups_apply();--> statement-breakpoint
CREATE TRIGGER messages_rollups_truncate AFTER TRUNCATE ON "messages"
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_rollups_truncate();--> statement-breakpoint
CREATE TRIGGER contact_ranges_rollups_insert AFTER INSERT ON "contact_ranges"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_contact_rollups_apply();--> statement-breakpoint
CREATE TRIGGER contact_ranges_rollups_update AFTER UPDATE ON "contact_ranges"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_contact_rollups_apply();--> statement-breakpoint
CREATE TRIGGER contact_ranges_rollups_delete AFTER DELETE ON "contact_ranges"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_contact_rollups_apply();--> statement-breakpoint

-- Backfill the messages written before this migration (contact_rollups follows by trigger).
INSERT INTO message_rollups (app_id, bucket_start, sent, delivered, read, failed, cost)
SELECT app_id, analytics_bucket(created_at),
       count(*) FILTER (WHERE status IN ('sent', 'delivered', 'read')), count(*) FILTER (WHERE status IN ('delivered', 'read')),
       count(*) FILTER (WHERE status = 'read'), count(*) FILTER (WHERE status = 'failed'), sum(cost)
FROM "messages" WHERE direction = 'outbound'
GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO campaign_rollups (app_id, campaign_id, sent, delivered, read, failed, cost)
SELECT app_id, campaign_id,
       count(*) FILTER (WHERE status IN ('sent', 'delivered', 'read')), count(*) FILTER (WHERE status IN ('delivered', 'read')),
       count(*) FILTER (WHERE status = 'read'), count(*) FILTER (WHERE status = 'failed'), sum(cost)
FROM "messages" WHERE direction = 'outbound' AND campaign_id IS NOT NULL
GROUP BY 1, 2;;--> statement-breakpoint
INSERT INTO contact_ranges (app_id, user_phone, first_seen, last_seen)
SELECT app_id, user_phone, min(created_at), max(created_at)
FROM "messages" WHERE direction = 'outbound'
GROUP BY 1, 2;
