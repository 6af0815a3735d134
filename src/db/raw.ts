import { getTableColumns, sql, type SQL, type Table } from 'drizzle-orm';

// Raw SQL through drizzle on both drivers (postgres.js and PGlite).

/** Rows of `db.execute(sql...)`: postgres.js returns an array, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * The SQLSTATE of a database error, looked up through drizzle's wrapping (`cause`), for either
 * driver: e.g. 23505 unique_violation, 23P01 exclusion_violation, 23503 foreign_key_violation.
 */
export function pgErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export const EXCLUSION_VIOLATION = '23P01';
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
export const DEADLOCK_DETECTED = '40P01';

/**
 * The `set` of an upsert that takes the proposed row's values: drizzle's `set` is keyed by the
 * table's property names (unknown keys are silently dropped), the SQL names the column.
 */
export function excludedSet<T extends Table, K extends keyof T['_']['columns'] & string>(table: T, keys: readonly K[]): Record<K, SQL> {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  return Object.fromEntries(keys.map((key) => [key, sql.raw(`excluded."${columns[key]!.name}"`)])) as Record<K, SQL>;
}

/** Input PostgreSQL cannot store in text: NUL (22021) or a character outside UTF-8 (22P05). */
export const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

export const QUERY_CANCELED = '57014';

const CONNECTION_CODES = new Set([
  // postgres.js
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  // node sockets
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND',
  // SQLSTATE: connection exceptions and operator intervention (server shutting down or starting)
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
  // A statement cancelled (DB_STATEMENT_TIMEOUT_MS, or by an operator): the database did not answer in time.
  QUERY_CANCELED,
]);

/** Whether an error means the database cannot be reached right now (503, not 500). */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((e) => isConnectionError(e))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Lifts DB_STATEMENT_TIMEOUT_MS for the rest of the transaction `tx`, for a statement whose size
 * the caller does not choose per request (every pending delivery of an endpoint with a backlog).
 */
export async function withoutStatementTimeout(tx: { execute: (query: SQL) => Promise<unknown> }): Promise<void> {
  await tx.execute(sql`set local statement_timeout = 0`);
}
