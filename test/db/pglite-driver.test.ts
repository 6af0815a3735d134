import { PGlite, types } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleOnPglite, TEXT_TYPES, textParsers, withoutInstanceParsers } from '../../src/db/pglite-driver.js';

// src/db/pglite-driver.ts drops the per-query parsers drizzle's PGlite driver passes, because the
// instance already has them. That is only right while drizzle asks for exactly those types as
// text: these tests read drizzle's own query config, so an upgrade that changes it fails here,
// and compare rows with drizzle over a stock PGlite (arrays of those types included: PGlite's
// start-up gives every array type its own parser, which drizzleOnPglite has to undo).

type QueryOptions = NonNullable<Parameters<PGlite['query']>[2]>;

function drizzleQueryConfigs(client: PGlite): QueryOptions[] {
  // A prepared query of the driver carries both configs it queries with.
  const query = drizzle({ client }).select({ one: sql`1` }).from(sql`(select 1) as t`).prepare('probe') as unknown as {
    queryConfig: QueryOptions;
    rawQueryConfig: QueryOptions;
  };
  return [query.queryConfig, query.rawQueryConfig];
}

const probe = sql`select
  '2026-03-08 09:59:59.123456+00'::timestamptz as tstz,
  '2026-03-08 09:59:59.5'::timestamp as ts,
  '2026-02-28'::date as day,
  '1 day 02:03:04.5'::interval as span,
  array['2026-03-08 10:00:00+00'::timestamptz, null] as tstz_list,
  array['2026-03-08'::date] as day_list,
  array['2026-03-08 10:00:00'::timestamp] as ts_list,
  array['1 hour'::interval] as span_list,
  array[1.50::numeric, 0.000001] as numeric_list,
  12.340::numeric as amount,
  42::int as count,
  true as flag,
  '{"a":1}'::jsonb as doc`;

let plain: PGlite;
let lean: PGlite;
const seen: (QueryOptions | undefined)[] = [];
beforeAll(async () => {
  plain = await PGlite.create();
  lean = await PGlite.create();
  const spy = <T extends Pick<PGlite, 'query'>>(client: T) => {
    const query = client.query.bind(client);
    client.query = ((text: string, params?: unknown[], options?: QueryOptions) => {
      seen.push(options);
      return query(text, params, options);
    }) as PGlite['query'];
    return client;
  };
  spy(lean);
  const transaction = lean.transaction.bind(lean);
  lean.transaction = ((callback: Parameters<PGlite['transaction']>[0]) => transaction((tx) => callback(spy(tx)))) as PGlite['transaction'];
});
afterAll(async () => {
  await plain.close();
  await lean.close();
});

describe('the PGlite driver without per-query parsers', () => {
  it('covers exactly the types drizzle asks for as text, each given back unchanged', () => {
    for (const config of drizzleQueryConfigs(plain)) {
      const oids = Object.keys(config.parsers ?? {}).map(Number);
      expect(oids.length).toBeGreaterThan(0);
      expect(new Set(oids)).toEqual(new Set(TEXT_TYPES));
      for (const oid of oids) expect(config.parsers![oid]!('2026-03-08 10:00:00+00')).toBe('2026-03-08 10:00:00+00');
      expect(withoutInstanceParsers(config)).not.toHaveProperty('parsers');
      expect(withoutInstanceParsers(config)).toMatchObject({ rowMode: config.rowMode });
    }
    expect(Object.keys(textParsers).map(Number).sort()).toEqual([...TEXT_TYPES].sort());
  });

  it('passes options naming any other type on as they are', () => {
    const other: QueryOptions = { parsers: { [types.TIMESTAMPTZ]: (v: string) => v, [types.INT4]: (v: string) => Number(v) * 2 } };
    expect(withoutInstanceParsers(other)).toBe(other);
    expect(withoutInstanceParsers(undefined)).toBeUndefined();
  });

  it('gives the same rows as drizzle over a stock PGlite, and PGlite gets no per-query parsers', async () => {
    const expected = await drizzle({ client: plain }).execute(probe);
    seen.length = 0;
    const actual = (await drizzleOnPglite(lean).execute(probe)) as unknown as { rows: unknown[] };
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.rows[0]).toMatchObject({ tstz: '2026-03-08 09:59:59.123456+00', day: '2026-02-28', count: 42, flag: true, doc: { a: 1 } });
    expect(seen.length).toBeGreaterThan(0);
    for (const options of seen) expect(options?.parsers).toBeUndefined();
  });

  it('does the same inside a transaction', async () => {
    const expected = await drizzle({ client: plain }).transaction((tx) => tx.execute(probe));
    seen.length = 0;
    const actual = (await drizzleOnPglite(lean).transaction((tx) => tx.execute(probe))) as unknown as { rows: unknown[] };
    expect(actual.rows).toEqual(expected.rows);
    expect(seen.length).toBeGreaterThan(0);
    for (const options of seen) expect(options?.parsers).toBeUndefined();
  });
});
