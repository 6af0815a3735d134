import DataLoader from 'dataloader';
import { and, eq, inArray } from 'drizzle-orm';
import { loader, type RequestContext } from '../runtime.js';
import { emptyFunnel, rollupFunnel, type FunnelCounts } from './funnel.js';
import { campaignRollups } from './tables.js';

/**
 * campaign.stats for a whole page in one grouped query: DataLoader batches the loads of one
 * tick; one loader per request, so nothing is cached across requests. Keys are (appId, campaignId).
 */
export function campaignStatsLoader(ctx: RequestContext) {
  return loader(
    ctx,
    'campaignStats',
    () =>
      new DataLoader<{ appId: string; campaignId: string }, FunnelCounts, string>(
        async (keys) => {
          const byApp = new Map<string, string[]>();
          for (const key of keys) byApp.set(key.appId, [...(byApp.get(key.appId) ?? []), key.campaignId]);
          const found = new Map<string, FunnelCounts>();
          for (const [appId, ids] of byApp) {
            // campaign_rollups holds one row per (app, campaign), kept by the messages triggers.
            const rows = await ctx.runtime.database.analyticsDb
              .select({ campaignId: campaignRollups.campaignId, ...rollupFunnel() })
              .from(campaignRollups)
              .where(and(eq(campaignRollups.appId, appId), inArray(campaignRollups.campaignId, ids)))
              .groupBy(campaignRollups.campaignId);
            for (const { campaignId, ...counts } of rows) found.set(`${appId}:${campaignId}`, { ...counts, cost: Number(counts.cost) });
          }
          return keys.map((k) => found.get(`${k.appId}:${k.campaignId}`) ?? emptyFunnel());
        },
        { cacheKeyFn: (k) => `${k.appId}:${k.campaignId}` },
      ),
  );
}
