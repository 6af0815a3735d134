import { sql, type SQL } from 'drizzle-orm';
import { campaignRollups, messages } from './tables.js';

// The funnel over outbound messages: each stage counts the messages that reached it or went further.
export const funnel = {
  sent: ['sent', 'delivered', 'read'],
  delivered: ['delivered', 'read'],
  read: ['read'],
  failed: ['failed'],
} as const;

const inList = (statuses: readonly string[]) => sql.join(statuses.map((s) => sql`${s}`), sql`, `);

/** The aggregate columns of the funnel, for any grouping: sent, delivered, read, failed, cost. */
export function funnelColumns() {
  return {
    sent: sql<number>`count(*) filter (where ${messages.status} in (${inList(funnel.sent)}))::int`,
    delivered: sql<number>`count(*) filter (where ${messages.status} in (${inList(funnel.delivered)}))::int`,
    read: sql<number>`count(*) filter (where ${messages.status} in (${inList(funnel.read)}))::int`,
    failed: sql<number>`count(*) filter (where ${messages.status} in (${inList(funnel.failed)}))::int`,
    cost: sql<number>`coalesce(sum(${messages.cost}), 0)::float8`,
  } satisfies Record<string, SQL>;
}

/** funnelColumns() summed over campaign_rollups rows instead of messages. */
export function rollupFunnel() {
  const t = campaignRollups;
  return {
    sent: sql<number>`coalesce(sum(${t.sent}), 0)::int`,
    delivered: sql<number>`coalesce(sum(${t.delivered}), 0)::int`,
    read: sql<number>`coalesce(sum(${t.read}), 0)::int`,
    failed: sql<number>`coalesce(sum(${t.failed}), 0)::int`,
    cost: sql<number>`coalesce(sum(${t.cost}), 0)::float8`,
  } satisfies Record<string, SQL>;
}

/**
 * One message's contribution to the funnel as 0/1 columns (sent, delivered, read, failed) and
 * its cost: rows of this shape sum to the same figures as funnelColumns(). The rollup triggers
 * (migration analytics_rollup_triggers) compute the same, in SQL of their own.
 */
export function funnelFlags(status: SQL | typeof messages.status, cost: SQL | typeof messages.cost) {
  return sql`(${status} in (${inList(funnel.sent)}))::int as sent, (${status} in (${inList(funnel.delivered)}))::int as delivered,
    (${status} in (${inList(funnel.read)}))::int as read, (${status} in (${inList(funnel.failed)}))::int as failed, ${cost} as cost`;
}

export interface FunnelCounts {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  cost: number;
}

export const emptyFunnel = (): FunnelCounts => ({ sent: 0, delivered: 0, read: 0, failed: 0, cost: 0 });
