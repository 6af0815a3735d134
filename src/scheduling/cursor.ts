import { decodeCursor, encodeCursor, type CursorKeys } from '../db/cursor.js';
import { appList, type Page } from '../db/keyset.js';
import { validationFailed } from '../errors/app-error.js';

// Keyset cursors of the scheduled-call list: the last row's (scheduled_at, id), opaque and bound
// to this list and its app by the same integrity check as the analytics lists (db/cursor.ts).
const LIST = 'scheduled_calls';

export interface CallPosition {
  at: Date;
  id: string;
}

export const callsCursor = {
  decode(keys: CursorKeys, appId: string, cursor: string): CallPosition {
    const position = decodeCursor(keys, appList(LIST, appId), cursor);
    if (!position) throw validationFailed([{ field: 'after', code: 'invalid_value', message: 'is not a cursor of this list' }], 'invalid_request');
    return { at: position.createdAt, id: position.id };
  },
  /** Rows fetched with limit + 1 become a page and the cursor of its last row. */
  page<T>(keys: CursorKeys, appId: string, rows: T[], limit: number, positionOf: (row: T) => CallPosition): Page<T> {
    const hasMore = rows.length > limit;
    const items = hasMore ? rows.slice(0, limit) : rows;
    const last = items.at(-1);
    const cursorOf = (row: T) => encodeCursor(keys, appList(LIST, appId), { createdAt: positionOf(row).at, id: positionOf(row).id });
    return { items, hasMore, nextCursor: hasMore && last ? cursorOf(last) : null, limit, cursorOf };
  },
};
