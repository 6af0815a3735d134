import { withMeta } from './adapter.js';

/** What a v1 list's document selects of a GraphQL connection: `limit pageInfo { hasNextPage endCursor } nodes { … }`. */
export interface Connection<T> {
  limit: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
}

/** A v1 list's `pagination`: the connection's limit, whether more follow, and the cursor to pass next. */
export const pagination = (page: Connection<unknown>) => ({ limit: page.limit, hasMore: page.pageInfo.hasNextPage, nextCursor: page.pageInfo.endCursor });

/** The list envelope: data (the page's nodes, or `data` when mapped), meta.timestamp, pagination. */
export const listEnvelope = <T>(page: Connection<T>, data: unknown[] = page.nodes) => ({ body: withMeta(data, { pagination: pagination(page) }) });
