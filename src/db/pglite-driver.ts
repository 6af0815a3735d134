import { types, type PGlite, type Transaction } from '@electric-sql/pglite';
import type { Logger as DrizzleLogger } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import type { Db } from './client.js';
import * as schema from './schema.js';

type QueryOptions = NonNullable<Parameters<PGlite['query']>[2]>;
type Parsers = NonNullable<QueryOptions['parsers']>;

const asText = (value: string) => value;

/**
 * The types drizzle's PGlite driver asks to get as text (it maps them itself): timestamps, dates,
 * intervals and their arrays, and numeric[]. Given to PGlite once, as the instance's parsers.
 */
export const TEXT_TYPES: readonly number[] = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182];
export const textParsers: Parsers = Object.fromEntries(TEXT_TYPES.map((oid) => [oid, asText]));
const covered = new Set(TEXT_TYPES.map(String));

/**
 * drizzle passes those parsers with every query, and PGlite merges per-query parsers into its
 * own (one entry per type) by spreading both into a new object on every query, which costs more
 * than a cached read itself. When the instance already has them, that copy changes nothing, so
 * it is dropped.
 * Options naming any other type are passed on as they are.
 */
const lean = new WeakMap<QueryOptions, QueryOptions>();
export function withoutInstanceParsers(options: QueryOptions | undefined): QueryOptions | undefined {
  if (!options?.parsers) return options;
  let kept = lean.get(options);
  if (!kept) {
    if (!Object.keys(options.parsers).every((oid) => covered.has(oid))) return options;
    const { parsers: _covered, ...rest } = options;
    kept = rest;
    lean.set(options, kept);
  }
  return kept;
}

type Queryable = PGlite | Transaction;

/** The client drizzle is given: PGlite (or an open transaction) with the per-query parsers dropped. */
function leanClient<T extends Queryable>(client: T): T {
  const query: Queryable['query'] = (text, params, options) => client.query(text, params, withoutInstanceParsers(options));
  const transaction = <R>(callback: (tx: Transaction) => Promise<R>) =>
    (client as PGlite).transaction((tx) => callback(leanClient(tx)));
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'transaction' && 'transaction' in target) return transaction;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A drizzle handle on `client` (openDatabase, the webhook worker). The text parsers are set on
 * the instance here, not only through `PGlite.create({ parsers })`: PGlite's start-up replaces
 * the parser of every array type with one that parses the array (refreshArrayTypes), which
 * would turn drizzle's `timestamptz[]` or `numeric[]` text into arrays.
 */
export function drizzleOnPglite(client: PGlite, logger?: DrizzleLogger): Db {
  Object.assign(client.parsers, textParsers);
  return drizzle({ client: leanClient(client), schema, logger }) as unknown as Db;
}
