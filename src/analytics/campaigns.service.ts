import { and, arrayOverlaps, desc, eq, gte, ilike, inArray, lt, type SQL } from 'drizzle-orm';
import type { RequestContext } from '../runtime.js';
import { containsPattern, dayRange, type CampaignListArgs } from './filters.js';
import { afterCursor, toPage, type Page } from './pagination.js';
import { campaigns, type CampaignRow } from './tables.js';

const LIST = 'campaigns';

/** One keyset page of an app's campaigns, newest first; tags match if any is carried (DESIGN section 6). */
export async function listCampaigns(ctx: RequestContext, args: CampaignListArgs): Promise<Page<CampaignRow>> {
  const conditions: (SQL | undefined)[] = [eq(campaigns.appId, args.appId), afterCursor(LIST, args.after, campaigns.createdAt, campaigns.id)];
  const statuses = (args.status ?? []).filter((s) => s !== 'all');
  if (statuses.length > 0 && !args.status?.includes('all')) conditions.push(inArray(campaigns.status, statuses));
  if (args.search) conditions.push(ilike(campaigns.name, containsPattern(args.search)));
  if (args.tags && args.tags.length > 0) conditions.push(arrayOverlaps(campaigns.tags, args.tags));
  const { from, to } = dayRange(args.startDate, args.endDate);
  if (from) conditions.push(gte(campaigns.createdAt, from));
  if (to) conditions.push(lt(campaigns.createdAt, to));
  // ISO datetimes (campaign search): half-open [start, end).
  if (args.createdFrom) conditions.push(gte(campaigns.createdAt, args.createdFrom));
  if (args.createdBefore) conditions.push(lt(campaigns.createdAt, args.createdBefore));
  const rows = await ctx.runtime.database.db
    .select()
    .from(campaigns)
    .where(and(...conditions))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(args.first + 1);
  return toPage(LIST, rows, args.first);
}
