import type { ArgBuilder, ObjectRef } from '@pothos/core';
import type { z } from 'zod';
import { DEFAULT_PAGE, MAX_PAGE } from '../validation/list-input.js';
import type { ListCount, Page } from '../db/keyset.js';
import type { RequestContext } from '../runtime.js';
import { builder, type Types } from './builder.js';

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

/** What a list field resolves to: the plugin's connection shape over a keyset Page, plus limit and count. */
export interface KeysetConnection<T> {
  edges: readonly { node: T; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  limit: number;
  count: Page<T>['count'];
}

/** One edge; its cursor (an HMAC) is made only when a document selects it. */
class KeysetEdge<T> {
  constructor(
    readonly node: T,
    private readonly page: Page<T>,
  ) {}

  get cursor(): string {
    return this.page.cursorOf(this.node);
  }
}

/**
 * PageInfo over a page; start and end cursors are made only when selected, and a last page's end
 * cursor not at all when the caller reads it only with a next page (`endCursorOnlyWithNextPage`).
 */
class KeysetPageInfo<T> {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;

  constructor(
    private readonly page: Page<T>,
    private readonly endCursorOnlyWithNextPage: boolean,
  ) {
    this.hasNextPage = page.hasNextPage;
    this.hasPreviousPage = page.hasPreviousPage;
  }

  get startCursor(): string | null {
    const { items } = this.page;
    return items.length > 0 ? this.page.cursorOf(items[0]!) : null;
  }

  get endCursor(): string | null {
    const { items } = this.page;
    if (this.endCursorOnlyWithNextPage && !this.hasNextPage) return null;
    return items.length > 0 ? this.page.cursorOf(items[items.length - 1]!) : null;
  }
}

/**
 * A page as the connection types read it. The plugin's `nodes` reads `edges` too, so the edges are
 * made once, on first read; getters sit on prototypes, since object literals with accessors are
 * slow to build and a page has up to 200 edges.
 */
class KeysetPageConnection<T> implements KeysetConnection<T> {
  readonly pageInfo: KeysetPageInfo<T>;
  readonly limit: number;
  readonly count: Page<T>['count'];
  private made?: KeysetEdge<T>[];

  constructor(
    private readonly page: Page<T>,
    endCursorOnlyWithNextPage: boolean,
  ) {
    this.pageInfo = new KeysetPageInfo(page, endCursorOnlyWithNextPage);
    this.limit = page.limit;
    this.count = page.count;
  }

  get edges(): KeysetEdge<T>[] {
    if (!this.made) {
      const { items } = this.page;
      const edges = new Array<KeysetEdge<T>>(items.length);
      for (let i = 0; i < items.length; i++) edges[i] = new KeysetEdge(items[i]!, this.page);
      this.made = edges;
    }
    return this.made;
  }
}

export const connectionFrom = <T>(page: Page<T>, endCursorOnlyWithNextPage = false): KeysetConnection<T> =>
  new KeysetPageConnection(page, endCursorOnlyWithNextPage);

/** A list field's resolver result: its service's page as a connection, for the request `ctx`. */
export const toConnection = async <T>(ctx: Pick<RequestContext, 'endCursorOnlyWithNextPage'>, page: Promise<Page<T>>): Promise<KeysetConnection<T>> =>
  connectionFrom(await page, ctx.endCursorOnlyWithNextPage);

/**
 * `<Name>Connection` and `<Name>Edge` from the relay plugin (edges, nodes, pageInfo: builder.ts
 * sets their options), with the page size used and the capped count.
 */
export function keysetConnection<T>(name: string, node: ObjectRef<any, T>, description: string) {
  return builder.connectionObject(
    {
      type: node,
      name: `${name}Connection`,
      description,
      fields: (t) => ({
        limit: t.int({ description: 'The page size used.', resolve: (connection) => (connection as unknown as KeysetConnection<T>).limit }),
        count: t.field({
          type: Count,
          description:
            'How many rows match the filter, whatever the cursor: exact up to a cap (10,000 by default), then the cap with precision AT_LEAST. Counted in one SQL statement, only when selected; adds to the query cost.',
          complexity: COUNT_COMPLEXITY,
          resolve: (connection, _args, ctx) => (connection as unknown as KeysetConnection<T>).count(ctx.runtime.config.GRAPHQL_COUNT_CAP),
        }),
      }),
    },
    {
      name: `${name}Edge`,
      description: `One ${name} of a page, with its cursor.`,
      nodeField: { description: `The ${name}.` },
    },
  );
}

/** The page arguments of a list field: Relay's first/after and last/before, validated like first and after were. */
export function pageArgs(
  arg: ArgBuilder<Types>,
  validation: { size?: z.ZodType<number>; cursor?: z.ZodType<string> } = {},
  cursorDescriptions: { after?: string; before?: string } = {},
) {
  const size = validation.size && { validate: { schema: validation.size } };
  const cursor = validation.cursor && { validate: { schema: validation.cursor } };
  return {
    first: arg.int({ description: `Page size reading forward, 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE} when last is not given either).`, ...size }),
    after: arg.string({ description: cursorDescriptions.after ?? 'Read forward from after this cursor: pageInfo.endCursor of the previous page, or any edge cursor.', ...cursor }),
    last: arg.int({ description: `Page size reading backward: the last rows before \`before\` (or of the whole list), 1 to ${MAX_PAGE}; not with first.`, ...size }),
    before: arg.string({ description: cursorDescriptions.before ?? 'Read backward from before this cursor: pageInfo.startCursor of the following page, or any edge cursor; not with after.', ...cursor }),
  };
}

/** A page of up to 200 rows weighs as 10 list items of the complexity budget, read either way. */
export const pageComplexity = (args: { first?: number | null; last?: number | null }) => ({ field: 1, multiplier: Math.ceil((args.first ?? args.last ?? DEFAULT_PAGE) / 20) });
