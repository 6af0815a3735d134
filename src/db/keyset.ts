import { and, asc, desc, eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { validationFailed } from '../errors/app-error.js';
import type { Db } from './client.js';
import { decodeCursor, encodeCursor, type CursorKeys, type CursorPosition, type IdKind } from './cursor.js';
import { byShape, shapeOf } from './prepared.js';

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
  limit: number;
  /** The cursor after an item (GraphQL edges): made only when a client asks for it. */
  cursorOf: (item: T) => string;
  /**
   * The rows of the app matching the page's filters (the cursor aside), counted in SQL only when
   * called: exact up to `cap`, past it `cap` as a lower bound.
   */
  count: (cap: number) => Promise<ListCount>;
}

/** A list's size: exact, or at least `count` rows when the list reached the cap. */
export interface ListCount {
  count: number;
  precision: 'EXACT' | 'AT_LEAST';
}

/** A count of at most cap + 1 rows, as the count query reads it (a string from some drivers). */
export function cappedCount(counted: number | string | bigint, cap: number): ListCount {
  const n = Number(counted);
  return n > cap ? { count: cap, precision: 'AT_LEAST' } : { count: n, precision: 'EXACT' };
}

/**
 * A list's cursor binding for one app: a cursor taken from another app's page of the same list
 * is refused like an edited one, instead of positioning this app's page at the other's keyset.
 */
export const appList = (list: string, appId: string) => `${list}\u0000${appId.toLowerCase()}`;

type CursorError = 'validation_error' | 'invalid_request';

/** The position a cursor of `list` names; a foreign, edited or forged cursor is 400. */
export function cursorPosition(keys: CursorKeys, list: string, after: string, ids: IdKind = 'uuid', type: CursorError = 'validation_error') {
  const position = decodeCursor(keys, list, after, ids);
  if (!position) throw validationFailed([{ field: 'after', code: 'invalid_value', message: 'is not a cursor of this list' }], type);
  return position;
}

/** What a page request names: the app, the page size and the cursor to continue after. */
export interface PageArgs {
  appId: string;
  first: number;
  after?: string | null;
}

/**
 * One keyset list of an app's rows: ordered by (at, id), newest first unless `direction` is asc,
 * its cursors the last row's (at, id) bound to this list and the app.
 */
export interface KeysetListSpec<T extends PgTable> {
  /** The name cursors are bound to. */
  name: string;
  table: T;
  appId: PgColumn;
  at: PgColumn;
  id: PgColumn;
  /** The row's value of `at`; createdAt unless said. */
  atOf?: (row: T['$inferSelect']) => Date;
  direction?: 'asc' | 'desc';
  ids?: IdKind;
  /** The error type of a cursor this list did not issue. */
  cursorError?: CursorError;
}

export interface KeysetList<Row> {
  /** One page of the app's rows matching every filter, after the cursor. */
  page(db: Db, keys: CursorKeys, args: PageArgs, filters: (SQL | undefined)[]): Promise<Page<Row>>;
  /**
   * The same page from a query prepared once per shape (which of the `optional` values a request
   * carries, db/prepared.ts): `filters` writes the conditions of that shape with placeholders
   * named like the values.
   */
  preparedPage(
    db: Db,
    keys: CursorKeys,
    args: PageArgs,
    values: Record<string, unknown>,
    optional: readonly string[],
    filters: (has: (name: string) => boolean) => (SQL | undefined)[],
  ): Promise<Page<Row>>;
}

export function keysetList<T extends PgTable>(spec: KeysetListSpec<T>): KeysetList<T['$inferSelect']> {
  type Row = T['$inferSelect'];
  const { name, table, appId, at, id, ids = 'uuid', cursorError = 'validation_error' } = spec;
  const atOf = spec.atOf ?? ((row: Row) => (row as { createdAt: Date }).createdAt);
  const positionOf = (row: Row): CursorPosition => ({ createdAt: atOf(row), id: (row as { id: string }).id });
  const ascending = spec.direction === 'asc';
  const orderBy = ascending ? [asc(at), asc(id)] : [desc(at), desc(id)];
  // A row comparison keeps the (app_id, at, id) index usable. Raw fragments take ISO text:
  // drizzle's postgres.js driver does not serialize a Date outside a column.
  const afterPosition = (positionAt: SQL, positionId: SQL | string) =>
    ascending ? sql`(${at}, ${id}) > (${positionAt}, ${positionId})` : sql`(${at}, ${id}) < (${positionAt}, ${positionId})`;
  const positionOfCursor = (keys: CursorKeys, args: PageArgs) =>
    args.after === undefined || args.after === null ? undefined : cursorPosition(keys, appList(name, args.appId), args.after, ids, cursorError);

  /** Rows fetched with limit + 1 become a page and the cursor of its last row. */
  function toPage(cursorKeys: CursorKeys, list: string, rows: Row[], limit: number, count: Page<Row>['count']): Page<Row> {
    const hasMore = rows.length > limit;
    const items = hasMore ? rows.slice(0, limit) : rows;
    const last = items.at(-1);
    return {
      items,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(cursorKeys, list, positionOf(last)) : null,
      limit,
      cursorOf: (item) => encodeCursor(cursorKeys, list, positionOf(item)),
      count,
    };
  }

  // At most cap + 1 rows are read, so a count costs the same at a million rows as at the cap.
  const countOf = (db: Db, where: SQL | undefined, limit: Placeholder | number) =>
    db.select({ n: sql<number>`count(*)` }).from(db.select({ one: sql`1` }).from(table as PgTable).where(where).limit(limit as number).as('capped'));

  /** The count query of one shape (no cursor), every value a placeholder. */
  function countQuery(db: Db, shape: readonly string[], filters: (has: (name: string) => boolean) => (SQL | undefined)[]) {
    const has = (value: string) => shape.includes(value);
    return countOf(db, and(eq(appId, sql.placeholder('appId')), ...filters(has)), sql.placeholder('countLimit')).prepare(`${name}_count_${shape.join('_') || 'all'}`);
  }

  /** The page query of one shape, every value a placeholder. */
  function pageQuery(db: Db, shape: readonly string[], filters: (has: (name: string) => boolean) => (SQL | undefined)[]) {
    const has = (value: string) => shape.includes(value);
    const conditions: (SQL | undefined)[] = [eq(appId, sql.placeholder('appId'))];
    if (has('afterAt')) conditions.push(afterPosition(sql`${sql.placeholder('afterAt')}::timestamptz`, sql`${sql.placeholder('afterId')}`));
    conditions.push(...filters(has));
    return db
      .select()
      .from(table as PgTable)
      .where(and(...conditions))
      .orderBy(...orderBy)
      .limit(sql.placeholder('limit'))
      .prepare(`${name}_page_${shape.join('_') || 'all'}`);
  }

  return {
    async page(db, cursorKeys, args, filters) {
      const position = positionOfCursor(cursorKeys, args);
      const rows = (await db
        .select()
        .from(table as PgTable)
        .where(and(eq(appId, args.appId), position && afterPosition(sql`${position.createdAt.toISOString()}::timestamptz`, position.id), ...filters))
        .orderBy(...orderBy)
        .limit(args.first + 1)) as Row[];
      const count = async (cap: number) => {
        const [row] = await countOf(db, and(eq(appId, args.appId), ...filters), cap + 1);
        return cappedCount(row!.n, cap);
      };
      return toPage(cursorKeys, appList(name, args.appId), rows, args.first, count);
    },
    async preparedPage(db, cursorKeys, args, values, optional, filters) {
      const position = positionOfCursor(cursorKeys, args);
      const all: Record<string, unknown> = {
        // The values of every page query: the app, limit + 1 rows, and the cursor's position
        // when there is one (afterAt undefined otherwise: not part of the shape).
        appId: args.appId,
        limit: args.first + 1,
        afterAt: position?.createdAt.toISOString(),
        afterId: position?.id,
        // Spread last: on Node 20 each property added after a spread is a slow store.
        ...values,
      };
      const shape = shapeOf(all, ['afterAt', ...optional]);
      const rows = (await byShape(db, `${name}:${shape.join(',')}`, () => pageQuery(db, shape, filters)).execute(all)) as Row[];
      const count = async (cap: number) => {
        const countShape = shapeOf(values, optional);
        const query = byShape(db, `${name}:count:${countShape.join(',')}`, () => countQuery(db, countShape, filters));
        const [row] = (await query.execute({ appId: args.appId, countLimit: cap + 1, ...values })) as { n: number | string }[];
        return cappedCount(row!.n, cap);
      };
      return toPage(cursorKeys, appList(name, args.appId), rows, args.first, count);
    },
  };
}
