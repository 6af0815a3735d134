-- Message search by a phone number or a provider id: the five searched fields' 5-grams, lowercased
-- and hashed to integers, in one GIN expression index. Digit strings make trigrams unselective (a
-- thousand trigrams shared by every number of a country, a business number in every row); the
-- 5-grams of a phone number pick out its rows almost alone. A term of five or more characters must have all its 5-grams
-- here, and the ILIKE conditions still decide; shorter terms keep the trigram index.
-- lower() is what ILIKE compares in a UTF-8 database, so a row the ILIKE finds always has the grams.
-- Integers sort without the collation that text keys need, which makes the index build over twice
-- as fast; a hash collision only adds a candidate row for the ILIKEs to turn down.
CREATE OR REPLACE FUNCTION message_search_grams(VARIADIC fields text[]) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  grams integer[] := '{}';
  field text;
BEGIN
  FOREACH field IN ARRAY fields LOOP
    CONTINUE WHEN field IS NULL;
    field := lower(field);
    -- Repeated grams are left in: GIN keeps each key of a row once.
    FOR i IN 1 .. length(field) - 4 LOOP
      grams := grams || hashtext(substr(field, i, 5));
    END LOOP;
  END LOOP;
  RETURN grams;
END
$$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_search_grams_idx" ON "messages" USING gin (
  message_search_grams("user_phone", "provider_message_id", "conversation_key", "provider_from", "provider_to")
);
