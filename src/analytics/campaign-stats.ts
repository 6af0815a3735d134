import DataLoader from 'dataloader';
import { and, eq, inArray } from 'drizzle-orm';
import { loader, type RequestContext } from '../runtime.js';
import { emptyFunnel, funnelColumns, type FunnelCounts } from './funnel.js';
import { messages } from './tables.js';

/**
 * campaign.stats for a whole page in one grouped query (PITFALLS: DataLoader batches loads of
 * one tick; one loader per request). Keys are (appId, campaignId).
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
            const rows = await ctx.runtime.database.db
              .select({ campaignId: messages.campaignId, ...funnelColumns() })
              .from(messages)
              .where(and(eq(messages.appId, appId), eq(messages.direction, 'outbound'), inArray(messages.campaignId, ids)))
              .groupBy(messages.campaignId);
            for (const { campaignId, ...counts } of rows) found.set(`${appId}:${campaignId}`, { ...counts, cost: Number(counts.cost) });
          }
          return keys.map((k) => found.get(`${k.appId}:${k.campaignId}`) ?? emptyFunnel());
        },
        { cacheKeyFn: (k) => `${k.appId}:${k.campaignId}` },
      ),
  );
}
