import { sql, type SQL } from 'drizzle-orm';
import { messages } from './tables.js';

// DESIGN section 6: the funnel over outbound messages.
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

export interface FunnelCounts {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  cost: number;
}

export const emptyFunnel = (): FunnelCounts => ({ sent: 0, delivered: 0, read: 0, failed: 0, cost: 0 });
