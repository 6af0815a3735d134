import { describe, expect, it } from 'vitest';
import type { Page } from '../../src/db/keyset.js';
import { connectionFrom, toConnection } from '../../src/graphql/connection.js';

/** A page of `items` whose cursors are counted as they are made. */
function page(items: string[], hasNextPage: boolean) {
  const made: string[] = [];
  const value: Page<string> = {
    items,
    hasNextPage,
    hasPreviousPage: false,
    limit: 2,
    cursorOf: (item) => {
      made.push(item);
      return `cursor:${item}`;
    },
    count: async () => ({ count: items.length, precision: 'EXACT' }),
  };
  return { value, made };
}

// A v1 list shows no cursor on its last page, so REST's documents do not have one signed there;
// GraphQL clients get the last edge's cursor on every page (Relay), the last one included.
describe('a connection end cursor', () => {
  it('is the last edge cursor on a last page for GraphQL clients', () => {
    const last = page(['a', 'b'], false);
    expect(connectionFrom(last.value).pageInfo.endCursor).toBe('cursor:b');
    expect(last.made).toEqual(['b']);
  });

  it('is not made on a last page when read only with a next page', async () => {
    const last = page(['a', 'b'], false);
    const connection = await toConnection({ endCursorOnlyWithNextPage: true }, Promise.resolve(last.value));
    expect(connection.pageInfo.endCursor).toBeNull();
    expect(last.made).toEqual([]);
  });

  it('is made when a next page follows, whoever reads it', async () => {
    for (const endCursorOnlyWithNextPage of [true, false]) {
      const more = page(['a', 'b'], true);
      const connection = await toConnection({ endCursorOnlyWithNextPage }, Promise.resolve(more.value));
      expect(connection.pageInfo.endCursor).toBe('cursor:b');
      expect(connection.edges.map((edge) => edge.cursor)).toEqual(['cursor:a', 'cursor:b']);
    }
  });

  it('leaves the edge cursors of a last page alone', () => {
    const last = page(['a', 'b'], false);
    const connection = connectionFrom(last.value, true);
    expect(connection.edges.map((edge) => edge.cursor)).toEqual(['cursor:a', 'cursor:b']);
    expect(connection.pageInfo.startCursor).toBe('cursor:a');
  });
});
