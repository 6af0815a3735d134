import { withMeta } from './adapter.js';

/** What a v1 list's document selects of a GraphQL connection: `limit pageInfo { hasNextPage endCursor } nodes { … }`. */
export interface Connection<T> {
  limit: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
}

/**
 * A v1 list's `pagination`: the connection's limit, whether more follow, and the cursor to pass
 * next, null on the last page (endCursor is the last item's cursor whether or not a page follows).
 */
export const pagination = (page: Connection<unknown>) => ({
  limit: page.limit,
  hasMore: page.pageInfo.hasNextPage,
  nextCursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
});

/** The list envelope: data (the page's nodes, or `data` when mapped), meta.timestamp, pagination. */
export const listEnvelope = <T>(page: Connection<T>, data: unknown[] = page.nodes) => ({ body: withMeta(data, { pagination: pagination(page) }) });
