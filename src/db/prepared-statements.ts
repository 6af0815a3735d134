import type postgres from 'postgres';

/**
 * postgres.js sends a query that is not prepared, and has parameters, in two round trips: Parse
 * and Describe first (to learn the parameter types), then Bind and Execute once the server has
 * answered. drizzle prepares only queries given a name, so nearly every query would pay that
 * twice over, plus a parse on the server each time. Here every parameterized query text is a named
 * server-side statement on its connection (one round trip once known), up to MAX_TEXTS distinct
 * texts per process; past that, and for texts with more than MAX_PARAMETERS parameters, texts
 * run unprepared, so generated SQL of unbounded variety cannot grow every
 * connection's statement cache without limit.
 *
 * Plans are not shared: the pool's connections run with plan_cache_mode = force_custom_plan (set
 * in openPostgres), so a statement is planned for its actual values every time, never with a
 * generic plan that could suit one app's data and not another's. DB_PREPARE=0 (a transaction
 * pooler) turns all of this off: postgres.js then never prepares.
 */
const MAX_TEXTS = 500;
/** Bulk writes (multi-row inserts of the importer, long IN lists) vary with their row count: one-offs, left unprepared. */
const MAX_PARAMETERS = 100;

type Unsafe = postgres.Sql['unsafe'];

export function preferPreparedStatements<T extends postgres.Sql | postgres.TransactionSql>(sql: T, texts = new Set<string>()): T {
  const admit = (text: string) => texts.has(text) || (texts.size < MAX_TEXTS && texts.add(text) !== undefined);
  const unsafe = sql.unsafe.bind(sql) as Unsafe;
  (sql as { unsafe: Unsafe }).unsafe = ((...call: [string, unknown[]?, postgres.UnsafeQueryOptions?]) => {
    const [text, args, options] = call;
    // Any other call form (unsafe(text), unsafe(text, options)) goes through exactly as made.
    if (!Array.isArray(args) || args.length === 0 || args.length > MAX_PARAMETERS || options?.prepare || !admit(text)) {
      return (unsafe as (...a: unknown[]) => ReturnType<Unsafe>)(...call);
    }
    return unsafe(text, args as never, { ...options, prepare: true });
  }) as Unsafe;
  // Transactions and savepoints hand out a client of their own: the same rule applies there.
  for (const method of ['begin', 'savepoint'] as const) {
    const original = (sql as unknown as Record<string, unknown>)[method];
    if (typeof original !== 'function') continue;
    (sql as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const callback = args.pop() as (inner: postgres.TransactionSql) => unknown;
      return (original as (...a: unknown[]) => unknown).call(sql, ...args, (inner: postgres.TransactionSql) =>
        callback(preferPreparedStatements(inner, texts)),
      );
    };
  }
  return sql;
}
