import { and, arrayContains, eq, inArray, sql } from 'drizzle-orm';
import { notFound } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { rollupFunnel, type FunnelCounts } from './funnel.js';
import { rowsOf } from '../db/raw.js';
import { campaignRollups, campaigns } from './tables.js';

/** Distinct campaign tags of an app, sorted. */
export async function campaignTags(ctx: RequestContext, appId: string): Promise<string[]> {
  const result = await ctx.runtime.database.analyticsDb.execute(
    sql`select distinct unnest(${campaigns.tags}) as tag from ${campaigns} where ${campaigns.appId} = ${appId} order by 1`,
  );
  return rowsOf<{ tag: string }>(result).map((r) => r.tag);
}

export interface TagStats extends Omit<FunnelCounts, 'cost'> {
  campaignCount: number;
  lastUsed: Date;
}

/**
 * Over the app's campaigns carrying the tag; the funnel over outbound
 * messages of those campaigns; last_used is the newest such campaign; an unused tag is 404.
 */
export async function tagStats(ctx: RequestContext, appId: string, tag: string): Promise<TagStats> {
  const db = ctx.runtime.database.analyticsDb;
  const tagged = and(eq(campaigns.appId, appId), arrayContains(campaigns.tags, [tag]));
  const [usage] = await db
    .select({ campaignCount: sql<number>`count(*)::int`, lastUsed: sql<string | null>`max(${campaigns.createdAt})` })
    .from(campaigns)
    .where(tagged);
  if (!usage || usage.campaignCount === 0 || !usage.lastUsed) throw notFound('Tag');
  // Per-campaign funnels come from campaign_rollups (trigger-maintained), not from messages.
  const [counts] = await db
    .select(rollupFunnel())
    .from(campaignRollups)
    .where(and(eq(campaignRollups.appId, appId), inArray(campaignRollups.campaignId, db.select({ id: campaigns.id }).from(campaigns).where(tagged))));
  const { sent, delivered, read, failed } = counts!;
  return { campaignCount: usage.campaignCount, lastUsed: new Date(usage.lastUsed), sent, delivered, read, failed };
}
