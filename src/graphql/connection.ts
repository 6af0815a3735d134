import type { ObjectRef } from '@pothos/core';
import type { ListCount, Page } from '../db/keyset.js';
import { builder } from './builder.js';

const CountPrecision = builder.enumType('CountPrecision', {
  description: 'Whether a count is the exact number of rows or a lower bound.',
  values: {
    EXACT: { value: 'EXACT', description: 'The exact number of matching rows.' },
    AT_LEAST: { value: 'AT_LEAST', description: 'At least this many rows match: the count stopped at its cap.' },
  } as const,
});

const Count = builder.objectRef<ListCount>('Count').implement({
  description: 'How many rows a list has under its filter: exact up to a cap, then the cap as a lower bound.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'The number of matching rows, or the cap when precision is AT_LEAST.' }),
    precision: t.field({ type: CountPrecision, description: 'EXACT, or AT_LEAST when more rows match than the cap.', resolve: (c) => c.precision }),
  }),
});

/** What a count adds to the query cost: one bounded count statement. */
export const COUNT_COMPLEXITY = 10;

// The four fields the Relay connection spec names. Lists page forward only (first/after), where
// the spec lets hasPreviousPage answer false.
const PageInfo = builder.objectRef<Page<unknown>>('PageInfo').implement({
  description: 'Keyset pagination: pass endCursor as `after` for the next page.',
  fields: (t) => ({
    hasNextPage: t.boolean({ description: 'Whether another page follows this one.', resolve: (page) => page.hasMore }),
    endCursor: t.string({ nullable: true, description: 'Cursor of the last item; null when there is no next page.', resolve: (page) => page.nextCursor }),
    hasPreviousPage: t.boolean({ description: 'Always false: lists page forward only (first and after), as Relay connections may.', resolve: () => false }),
    startCursor: t.string({
      nullable: true,
      description: 'The cursor of the first item (its edge cursor); null when the page is empty.',
      resolve: (page) => (page.items.length > 0 ? page.cursorOf(page.items[0]) : null),
    }),
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
      pageInfo: t.field({
        type: PageInfo,
        description: 'Whether more follow, and the cursor to continue from.',
        resolve: (page) => page as Page<unknown>,
      }),
      limit: t.exposeInt('limit', { description: 'The page size used.' }),
      count: t.field({
        type: Count,
        description:
          'How many rows match the filter, whatever the cursor: exact up to a cap (10,000 by default), then the cap with precision AT_LEAST. Counted in one SQL statement, only when selected; adds to the query cost.',
        complexity: COUNT_COMPLEXITY,
        resolve: (page, _args, ctx) => page.count(ctx.runtime.config.GRAPHQL_COUNT_CAP),
      }),
    }),
  });
}

/** A page of up to 200 rows weighs as 10 list items of the complexity budget. */
export const pageComplexity = (args: { first?: number | null }) => ({ field: 1, multiplier: Math.ceil((args.first ?? 50) / 20) });
