import { and, eq, gte, ilike, lt, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { containsText } from '../db/contains.js';
import { notFound } from '../errors/app-error.js';
import { keysetList, type Page } from '../db/keyset.js';
import type { RequestContext } from '../runtime.js';
import { containsPattern, dayRange } from '../validation/list-input.js';
import type { MessageListArgs } from './filters.js';
import { messages, type MessageRow } from './tables.js';

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
const OPTIONAL = [...(Object.keys(EQUALS) as (keyof typeof EQUALS)[]), 'search', 'searchGrams', 'from', 'to'] as const;

/** Terms this long are looked up by their 5-grams (migrations/0023_message_search_grams.sql). */
const GRAM = 5;

/** The searched fields' 5-grams, written exactly as the index expression so the planner can use it. */
const searchGrams = sql`message_search_grams(${messages.userPhone}, ${messages.providerMessageId}, ${messages.conversationKey}, ${messages.providerFrom}, ${messages.providerTo})`;

const p = (name: string) => sql.placeholder(name);

const list = keysetList({ name: 'messages', table: messages, appId: messages.appId, at: messages.createdAt, id: messages.id, ids: 'text' });

const SEARCHED = [messages.userPhone, messages.providerMessageId, messages.conversationKey, messages.providerFrom, messages.providerTo] as const;

/** Any of the five fields matches `pattern`, the ILIKE pattern of a short term, which the trigram index answers. */
export function patternSearch(pattern: SQLWrapper): SQL {
  return or(...SEARCHED.map((field) => ilike(field, pattern)))!;
}

/**
 * Any of the five fields contains `term`, a raw term of at least GRAM characters. The gram index
 * answers first (a necessary condition) and containsText decides, the same test as ILIKE without
 * planning five patterns against the columns' statistics (db/contains.ts).
 */
export function gramSearch(term: SQLWrapper): SQL[] {
  return [sql`${searchGrams} @> message_search_grams(${term}::text)`, or(...SEARCHED.map((field) => containsText(field, term)))!];
}

/** The filters of one shape, every value a placeholder. */
function filters(has: (name: string) => boolean): (SQL | undefined)[] {
  const conditions: (SQL | undefined)[] = [];
  for (const [name, column] of Object.entries(EQUALS)) if (has(name)) conditions.push(eq(column, p(name)));
  if (has('searchGrams')) conditions.push(...gramSearch(p('searchGrams')));
  else if (has('search')) conditions.push(patternSearch(p('search')));
  if (has('from')) conditions.push(gte(messages.createdAt, sql`${p('from')}::timestamptz`));
  if (has('to')) conditions.push(lt(messages.createdAt, sql`${p('to')}::timestamptz`));
  return conditions;
}

/** One keyset page of an app's messages, newest first. */
export async function listMessages(ctx: RequestContext, args: MessageListArgs): Promise<Page<MessageRow>> {
  const { from, to } = dayRange(args.startDate, args.endDate);
  // In code points, as PostgreSQL counts: a shorter term has no 5-gram to look up.
  const short = !!args.search && [...args.search].length < GRAM;
  const values: Record<string, unknown> = {
    // An empty filter string filters nothing.
    status: args.status || undefined,
    direction: args.direction || undefined,
    channel: args.channel || undefined,
    messageType: args.messageType || undefined,
    source: args.source || undefined,
    destination: args.destination || undefined,
    search: short ? containsPattern(args.search!) : undefined,
    searchGrams: args.search && !short ? args.search : undefined,
    from: from?.toISOString(),
    to: to?.toISOString(),
  };
  return list.preparedPage(ctx.runtime.database, ctx.runtime.keys.cursorKeys, args, values, OPTIONAL, filters);
}

/** One message of the app; not_found when the app has none with this id. */
export async function getMessage(ctx: RequestContext, appId: string, messageId: string): Promise<MessageRow> {
  const [row] = await ctx.runtime.database.analyticsDb
    .select()
    .from(messages)
    .where(and(eq(messages.appId, appId), eq(messages.id, messageId)))
    .limit(1);
  if (!row) throw notFound('Message');
  return row;
}
