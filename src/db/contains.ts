import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * `column` contains `term`, in any case: what `column ILIKE '%term%'` (wildcards escaped) answers
 * in a UTF-8 database, which compares the lower() of both sides. Planning an ILIKE estimates its
 * pattern against the column's statistics every time, which cost more than the search it planned;
 * strpos is estimated at a fixed rate. Where a trigram index must answer the condition, keep ILIKE.
 */
export const containsText = (column: SQLWrapper, term: SQLWrapper | string): SQL => sql`strpos(lower(${column}), lower(${term}::text)) > 0`;
