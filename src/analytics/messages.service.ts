import { and, desc, eq, gte, ilike, lt, or, type SQL } from 'drizzle-orm';
import type { RequestContext } from '../runtime.js';
import { containsPattern, dayRange, type MessageListArgs } from './filters.js';
import { afterCursor, toPage, type Page } from './pagination.js';
import { messages, type MessageRow } from './tables.js';

const LIST = 'messages';

/** One keyset page of an app's messages, newest first (DESIGN section 6). */
export async function listMessages(ctx: RequestContext, args: MessageListArgs): Promise<Page<MessageRow>> {
  const conditions: (SQL | undefined)[] = [eq(messages.appId, args.appId), afterCursor(LIST, args.after, messages.createdAt, messages.id)];
  if (args.status) conditions.push(eq(messages.status, args.status));
  if (args.direction) conditions.push(eq(messages.direction, args.direction));
  if (args.channel) conditions.push(eq(messages.channel, args.channel));
  if (args.messageType) conditions.push(eq(messages.messageType, args.messageType));
  if (args.source) conditions.push(eq(messages.source, args.source));
  if (args.destination) conditions.push(eq(messages.destination, args.destination));
  if (args.search) {
    const pattern = containsPattern(args.search);
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
  const { from, to } = dayRange(args.startDate, args.endDate);
  if (from) conditions.push(gte(messages.createdAt, from));
  if (to) conditions.push(lt(messages.createdAt, to));

  const rows = await ctx.runtime.database.db
    .select()
    .from(messages)
    .where(and(...conditions))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(args.first + 1);
  return toPage(LIST, rows, args.first);
}
