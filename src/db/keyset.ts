import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { validationFailed } from '../errors/app-error.js';
import { decodeCursor, encodeCursor, type CursorKeys, type IdKind } from './cursor.js';

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
  limit: number;
  /** The cursor after an item (GraphQL edges): made only when a client asks for it. */
  cursorOf: (item: T) => string;
}

/**
 * A list's cursor binding for one app: a cursor taken from another app's page of the same list
 * is refused like an edited one, instead of positioning this app's page at the other's keyset.
 */
export const appList = (list: string, appId: string) => `${list}\u0000${appId.toLowerCase()}`;

/** The position a cursor of `list` names; a foreign, edited or forged cursor is 400. */
export function cursorPosition(keys: CursorKeys, list: string, after: string, ids: IdKind = 'uuid') {
  const position = decodeCursor(keys, list, after, ids);
  if (!position) throw validationFailed([{ field: 'after', code: 'invalid_value', message: 'is not a cursor of this list' }]);
  return position;
}

/** Rows after the cursor in (created_at desc, id desc) order; a foreign or edited cursor is 400. */
export function afterCursor(keys: CursorKeys, list: string, after: string | undefined, createdAt: PgColumn, id: PgColumn): SQL | undefined {
  if (after === undefined) return undefined;
  const position = cursorPosition(keys, list, after);
  // A row comparison keeps the (app_id, created_at desc, id desc) index usable. Raw fragments
  // take ISO text: drizzle's postgres.js driver does not serialize a Date outside a column.
  return sql`(${createdAt}, ${id}) < (${position.createdAt.toISOString()}::timestamptz, ${position.id})`;
}

/**
 * The values every keyset page query takes (see afterPlaceholders): the app, limit + 1 rows, and
 * the cursor's position when there is one (afterAt undefined otherwise: not part of the shape).
 */
export function keysetValues(keys: CursorKeys, list: string, args: { appId: string; first: number; after?: string }, ids: IdKind = 'uuid') {
  const position = args.after === undefined ? undefined : cursorPosition(keys, list, args.after, ids);
  return { appId: args.appId, limit: args.first + 1, afterAt: position?.createdAt.toISOString(), afterId: position?.id };
}

/** afterCursor for a prepared query: the position from the placeholders afterAt (ISO text) and afterId. */
export function afterPlaceholders(createdAt: PgColumn, id: PgColumn): SQL {
  return sql`(${createdAt}, ${id}) < (${sql.placeholder('afterAt')}::timestamptz, ${sql.placeholder('afterId')})`;
}

/** Rows fetched with limit + 1 become a page and the cursor of its last row. */
export function toPage<T extends { createdAt: Date; id: string }>(keys: CursorKeys, list: string, rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { items, hasMore, nextCursor: hasMore && last ? encodeCursor(keys, list, last) : null, limit, cursorOf: (item) => encodeCursor(keys, list, item) };
}
