import type { ObjectRef } from '@pothos/core';
import type { Page } from '../db/keyset.js';
import { builder } from './builder.js';

const PageInfo = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo').implement({
  description: 'Keyset pagination: pass endCursor as `after` for the next page.',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'Whether another page follows this one.' }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Cursor of the last item; null when there is no next page.' }),
  }),
});

/** A Relay-style connection over a keyset Page: edges, nodes, pageInfo and the limit used. */
export function connectionOf<T>(name: string, node: ObjectRef<any, T>, description: string) {
  const Edge = builder.objectRef<{ node: T; page: Page<T> }>(`${name}Edge`).implement({
    description: `One ${name} of a page, with the cursor after it.`,
    fields: (t) => ({
      node: t.field({ type: node, description: `The ${name}.`, resolve: (edge) => edge.node as never }),
      cursor: t.string({ description: 'The cursor after this item: pass it as `after` to continue from here.', resolve: (edge) => edge.page.cursorOf(edge.node) }),
    }),
  });
  return builder.objectRef<Page<T>>(`${name}Connection`).implement({
    description,
    fields: (t) => ({
      nodes: t.field({ type: [node], description: 'The items of this page, in order.', resolve: (page) => page.items as never }),
      edges: t.field({
        type: [Edge],
        description: 'The items of this page with cursors (Relay style); nodes is the shorter form.',
        resolve: (page) => page.items.map((item) => ({ node: item, page })),
      }),
      pageInfo: t.field({ type: PageInfo, description: 'Whether more follow, and the cursor to continue from.', resolve: (page) => ({ hasNextPage: page.hasMore, endCursor: page.nextCursor }) }),
      limit: t.exposeInt('limit', { description: 'The page size used.' }),
    }),
  });
}

/** A page of up to 200 rows weighs as 10 list items of the complexity budget. */
export const pageComplexity = (args: { first?: number | null }) => ({ field: 1, multiplier: Math.ceil((args.first ?? 50) / 20) });
