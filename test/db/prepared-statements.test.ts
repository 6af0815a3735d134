import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { rowsOf } from '../../src/db/raw.js';
import { createFreshDatabase } from '../helpers/server.js';

// src/db/prepared-statements.ts: drizzle's parameterized queries become named statements (one
// round trip once known), planned for their values every time; DB_PREPARE=0 turns it off.
describe.runIf(process.env.DATABASE_URL)('prepared statements on PostgreSQL', () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  const opened: Database[] = [];
  const open = async (prepare: boolean) => {
    const database = await openDatabase({ DATABASE_URL: fresh.url, DATA_DIR: 'memory', DB_POOL_MAX: 1, DB_PREPARE: prepare }, createLogger('silent'));
    opened.push(database);
    return database;
  };
  const statementsOf = async (database: Database) =>
    (await database.pg!.unsafe<{ statement: string }[]>('select statement from pg_prepared_statements')).map((r) => r.statement);

  beforeAll(async () => {
    fresh = await createFreshDatabase(process.env.DATABASE_URL!);
  });
  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
    await fresh.drop();
  });

  it('prepares a parameterized drizzle query, in and out of transactions, with custom plans', async () => {
    const database = await open(true);
    const probe = 'select $1::int + 1 as n';
    expect(await database.db.execute(sql`select ${41}::int + 1 as n`)).toEqual([{ n: 42 }]);
    expect(await statementsOf(database)).toContain(probe);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`select ${'in a transaction'}::text as t`);
      await tx.transaction(async (nested) => nested.execute(sql`select ${'in a savepoint'}::text as s`));
    });
    const statements = await statementsOf(database);
    expect(statements).toContain('select $1::text as t');
    expect(statements).toContain('select $1::text as s');
    const [mode] = await database.pg!.unsafe<{ plan_cache_mode: string }[]>('show plan_cache_mode');
    expect(mode!.plan_cache_mode).toBe('force_custom_plan');
  });

  it('runs its sessions without JIT, which cost more to compile than the reads it would speed up', async () => {
    const database = await open(true);
    const [pool] = await database.pg!.unsafe<{ jit: string }[]>('show jit');
    const [lookup] = rowsOf<{ jit: string }>(await database.authDb.execute(sql`show jit`));
    expect([pool!.jit, lookup!.jit]).toEqual(['off', 'off']);
  });

  it('passes other call forms through: unsafe(text, options), unsafe(text)', async () => {
    const database = await open(true);
    // postgres.js accepts unsafe(text, options) (its types do not say so).
    const unsafe = database.pg!.unsafe as unknown as (text: string, options: object) => Promise<unknown>;
    expect(await unsafe('select 1 as one', { prepare: true })).toEqual([{ one: 1 }]);
    expect(await database.pg!.unsafe('select 2 as two')).toEqual([{ two: 2 }]);
  });

  it('leaves bulk texts (over 100 parameters) unprepared', async () => {
    const database = await open(true);
    const values = Array.from({ length: 101 }, (_, i) => sql`${i}::int`);
    await database.db.execute(sql`select array[${sql.join(values, sql`, `)}] as many`);
    expect((await statementsOf(database)).filter((s) => s.startsWith('select array['))).toEqual([]);
  });

  it('prepares nothing with DB_PREPARE=0 (transaction poolers), and sends no plan_cache_mode they would refuse', async () => {
    const database = await open(false);
    await database.db.execute(sql`select ${1}::int as one`);
    expect(await statementsOf(database)).toEqual([]);
    const [mode] = await database.pg!.unsafe<{ plan_cache_mode: string }[]>('show plan_cache_mode');
    expect(mode!.plan_cache_mode).toBe('auto');
  });
});
