import { and, desc, eq, gte, ilike, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { byShape, shapeOf } from '../db/prepared.js';
import type { RequestContext } from '../runtime.js';
import { containsPattern, dayRange } from '../validation/list-input.js';
import type { MessageListArgs } from './filters.js';
import { afterPlaceholders, appList, keysetValues, toPage, type Page } from '../db/keyset.js';
import { messages, type MessageRow } from './tables.js';

const LIST = 'messages';

/** Filters compared for equality, by argument name and column. */
const EQUALS = {
  status: messages.status,
  direction: messages.direction,
  channel: messages.channel,
  messageType: messages.messageType,
  source: messages.source,
  destination: messages.destination,
} as const;

/** The optional values of a page query; which of them a request has is its shape. */
const OPTIONAL = [...(Object.keys(EQUALS) as (keyof typeof EQUALS)[]), 'afterAt', 'search', 'from', 'to'] as const;

const p = (name: string) => sql.placeholder(name);

/** The page query for one shape, every value a placeholder. */
function pageQuery(db: Db, shape: readonly string[]) {
  const has = (name: string) => shape.includes(name);
  const conditions: (SQL | undefined)[] = [eq(messages.appId, p('appId'))];
  if (has('afterAt')) conditions.push(afterPlaceholders(messages.createdAt, messages.id));
  for (const [name, column] of Object.entries(EQUALS)) if (has(name)) conditions.push(eq(column, p(name)));
  if (has('search')) {
    const pattern = p('search');
    conditions.push(
      or(
        ilike(messages.userPhone, pattern),
        ilike(messages.providerMessageId, pattern),
        ilike(messages.conversationKey, pattern),
        ilike(messages.providerFrom, pattern),
        ilike(messages.providerTo, pattern),
      ),
    );
  }
  if (has('from')) conditions.push(gte(messages.createdAt, sql`${p('from')}::timestamptz`));
  if (has('to')) conditions.push(lt(messages.createdAt, sql`${p('to')}::timestamptz`));
  return db
    .select()
    .from(messages)
    .where(and(...conditions))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(p('limit'))
    .prepare(`messages_page_${shape.join('_') || 'all'}`);
}

/** One keyset page of an app's messages, newest first. */
export async function listMessages(ctx: RequestContext, args: MessageListArgs): Promise<Page<MessageRow>> {
  const { from, to } = dayRange(args.startDate, args.endDate);
  const values: Record<string, unknown> = {
    // An empty filter string filters nothing.
    status: args.status || undefined,
    direction: args.direction || undefined,
    channel: args.channel || undefined,
    messageType: args.messageType || undefined,
    source: args.source || undefined,
    destination: args.destination || undefined,
    search: args.search ? containsPattern(args.search) : undefined,
    from: from?.toISOString(),
    to: to?.toISOString(),
    // Spread last: on Node 20 each property added after a spread is a slow store.
    ...keysetValues(ctx.runtime.keys.cursorKeys, appList(LIST, args.appId), args, 'text'),
  };
  const shape = shapeOf(values, OPTIONAL);
  const db = ctx.runtime.database.analyticsDb;
  const rows = await byShape(db, `messages:${shape.join(',')}`, () => pageQuery(db, shape)).execute(values);
  return toPage(ctx.runtime.keys.cursorKeys, appList(LIST, args.appId), rows, args.first);
}
