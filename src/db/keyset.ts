import { and, asc, desc, eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { validationFailed, type ErrorDetail } from '../errors/app-error.js';
import { DEFAULT_PAGE } from '../validation/list-input.js';
import type { Database, Db } from './client.js';
import { decodeCursor, encodeCursor, type CursorKeys, type CursorPosition, type IdKind } from './cursor.js';
import { byShape, shapeOf } from './prepared.js';

export interface Page<T> {
  /** The page's rows in the list's order, whichever way it was read. */
  items: T[];
  /** Read forward (first): whether rows follow the page. Read backward: false (Relay allows it). */
  hasNextPage: boolean;
  /** Read backward (last): whether rows precede the page. Read forward: false (Relay allows it). */
  hasPreviousPage: boolean;
  limit: number;
  /** The cursor of an item (GraphQL edges): made only when a client asks for it. */
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

/** The position a cursor of `list` names; a foreign, edited or forged cursor is 400 at `field`. */
export function cursorPosition(keys: CursorKeys, list: string, cursor: string, ids: IdKind = 'uuid', type: CursorError = 'validation_error', field: CursorField = 'after') {
  const position = decodeCursor(keys, list, cursor, ids);
  if (!position) throw validationFailed([{ field, code: 'invalid_value', message: 'is not a cursor of this list' }], type);
  return position;
}

/**
 * What a page request names: the app, and the Relay connection arguments: `first` rows after the
 * cursor `after` (forward), or the `last` rows before the cursor `before` (backward).
 */
export interface PageArgs {
  appId: string;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

type CursorField = 'after' | 'before';

/** How a page is read: its size, which way, and the cursor bounding it (of the argument `field`). */
export interface PageWindow {
  limit: number;
  backward: boolean;
  cursor?: { value: string; field: CursorField };
}

const given = <V>(value: V | null | undefined): value is V => value !== undefined && value !== null;

/**
 * The window of a page request. `last`, or `before` without `first`, reads backward; otherwise
 * forward, DEFAULT_PAGE rows unless sized. `first` with `last` and `after` with `before` are
 * refused: a keyset page reads one way from one bound. Sizes are validated with the list's
 * other arguments (pageSize).
 */
export function pageWindow(args: PageArgs, type: CursorError = 'validation_error'): PageWindow {
  const problems: ErrorDetail[] = [];
  if (given(args.first) && given(args.last)) problems.push({ field: 'last', code: 'invalid_value', message: 'give first (forward) or last (backward), not both' });
  if (given(args.after) && given(args.before)) problems.push({ field: 'before', code: 'invalid_value', message: 'give after (forward) or before (backward), not both' });
  if (problems.length > 0) throw validationFailed(problems, type);
  const backward = given(args.last) || (!given(args.first) && given(args.before));
  const limit = args.first ?? args.last ?? DEFAULT_PAGE;
  const cursor = given(args.after) ? { value: args.after, field: 'after' as const } : given(args.before) ? { value: args.before, field: 'before' as const } : undefined;
  return { limit, backward, cursor };
}

/**
 * Rows read limit + 1 in the window's direction: the page in the list's order (a backward read is
 * reversed), with whether more rows lie beyond it that way.
 */
export function windowPage<Row>(window: PageWindow, rows: Row[]): Pick<Page<Row>, 'items' | 'hasNextPage' | 'hasPreviousPage' | 'limit'> {
  const more = rows.length > window.limit;
  const read = more ? rows.slice(0, window.limit) : rows;
  return {
    items: window.backward ? read.reverse() : read,
    hasNextPage: !window.backward && more,
    hasPreviousPage: window.backward && more,
    limit: window.limit,
  };
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
  /** One page of the app's rows matching every filter, after or before the cursor (pageWindow). */
  page(db: Db, keys: CursorKeys, args: PageArgs, filters: (SQL | undefined)[]): Promise<Page<Row>>;
  /**
   * The same page from a query prepared once per shape (which of the `optional` values a request
   * carries, db/prepared.ts): `filters` writes the conditions of that shape with placeholders
   * named like the values. A shape with no filter runs on `pageDb` (planned once: Database.pageDb),
   * every other on `analyticsDb` (planned for its values).
   */
  preparedPage(
    handles: Pick<Database, 'analyticsDb' | 'pageDb'>,
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
  // A backward page scans the same (app_id, at, id) index the other way and is reversed in JS.
  const orderOf = (backward: boolean) => (ascending !== backward ? [asc(at), asc(id)] : [desc(at), desc(id)]);
  // A row comparison keeps the (app_id, at, id) index usable. Raw fragments take ISO text:
  // drizzle's postgres.js driver does not serialize a Date outside a column. `after` bounds the
  // rows that follow the cursor in the list's order, `before` those that precede it.
  const beyond = (field: CursorField, positionAt: SQL, positionId: SQL | string) =>
    ascending === (field === 'after') ? sql`(${at}, ${id}) > (${positionAt}, ${positionId})` : sql`(${at}, ${id}) < (${positionAt}, ${positionId})`;
  const positionOfCursor = (keys: CursorKeys, appIdValue: string, window: PageWindow) =>
    window.cursor && cursorPosition(keys, appList(name, appIdValue), window.cursor.value, ids, cursorError, window.cursor.field);

  /** Rows fetched with limit + 1 in the window's direction become a page. */
  function toPage(cursorKeys: CursorKeys, list: string, window: PageWindow, rows: Row[], count: Page<Row>['count']): Page<Row> {
    const { items, hasNextPage, hasPreviousPage, limit } = windowPage(window, rows);
    return { items, hasNextPage, hasPreviousPage, limit, cursorOf: (item) => encodeCursor(cursorKeys, list, positionOf(item)), count };
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
  function pageQuery(db: Db, backward: boolean, shape: readonly string[], filters: (has: (name: string) => boolean) => (SQL | undefined)[]) {
    const has = (value: string) => shape.includes(value);
    const conditions: (SQL | undefined)[] = [eq(appId, sql.placeholder('appId'))];
    for (const field of ['after', 'before'] as const) {
      if (has(`${field}At`)) conditions.push(beyond(field, sql`${sql.placeholder(`${field}At`)}::timestamptz`, sql`${sql.placeholder(`${field}Id`)}`));
    }
    conditions.push(...filters(has));
    return db
      .select()
      .from(table as PgTable)
      .where(and(...conditions))
      .orderBy(...orderOf(backward))
      .limit(sql.placeholder('limit'))
      .prepare(`${name}_page_${backward ? 'back_' : ''}${shape.join('_') || 'all'}`);
  }

  return {
    async page(db, cursorKeys, args, filters) {
      const window = pageWindow(args, cursorError);
      const position = positionOfCursor(cursorKeys, args.appId, window);
      const bound = position && beyond(window.cursor!.field, sql`${position.createdAt.toISOString()}::timestamptz`, position.id);
      const rows = (await db
        .select()
        .from(table as PgTable)
        .where(and(eq(appId, args.appId), bound, ...filters))
        .orderBy(...orderOf(window.backward))
        .limit(window.limit + 1)) as Row[];
      const count = async (cap: number) => {
        const [row] = await countOf(db, and(eq(appId, args.appId), ...filters), cap + 1);
        return cappedCount(row!.n, cap);
      };
      return toPage(cursorKeys, appList(name, args.appId), window, rows, count);
    },
    async preparedPage(handles, cursorKeys, args, values, optional, filters) {
      const window = pageWindow(args, cursorError);
      const position = positionOfCursor(cursorKeys, args.appId, window);
      const field = window.cursor?.field;
      const all: Record<string, unknown> = {
        // The values of every page query: the app, limit + 1 rows, and the cursor's position
        // under its argument's name when there is one (undefined otherwise: not part of the shape).
        appId: args.appId,
        limit: window.limit + 1,
        afterAt: field === 'after' ? position!.createdAt.toISOString() : undefined,
        afterId: field === 'after' ? position!.id : undefined,
        beforeAt: field === 'before' ? position!.createdAt.toISOString() : undefined,
        beforeId: field === 'before' ? position!.id : undefined,
        // Spread last: on Node 20 each property added after a spread is a slow store.
        ...values,
      };
      const shape = shapeOf(all, ['afterAt', 'beforeAt', ...optional]);
      const countShape = shapeOf(values, optional);
      // No filter, only the cursor: the walk of the list's index is the plan for every value.
      const db = countShape.length === 0 ? handles.pageDb : handles.analyticsDb;
      // Reading backward is a shape of its own: the same conditions, the other order.
      const key = `${name}:${window.backward ? 'back:' : ''}${shape.join(',')}`;
      const rows = (await byShape(db, key, () => pageQuery(db, window.backward, shape, filters)).execute(all)) as Row[];
      const count = async (cap: number) => {
        const query = byShape(db, `${name}:count:${countShape.join(',')}`, () => countQuery(db, countShape, filters));
        const [row] = (await query.execute({ appId: args.appId, countLimit: cap + 1, ...values })) as { n: number | string }[];
        return cappedCount(row!.n, cap);
      };
      return toPage(cursorKeys, appList(name, args.appId), window, rows, count);
    },
  };
}
