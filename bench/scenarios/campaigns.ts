import type { Scenario } from '../types.js';
import { floorGet, limitOf, listPage, postJson, sameIds } from './common.js';

const DAY = 86_400_000;
const LIMIT = 20;

/** Active or paused campaigns named like "promo", tagged vip, created in the 90 days before seeding. */
const window = (seededAt: string) => ({ start: new Date(Date.parse(seededAt) - 90 * DAY).toISOString(), end: seededAt });

export const campaignsSearch: Scenario = {
  name: 'campaigns_search',
  title: 'Campaigns search: status, name, tag, date window (REST POST)',
  request: (ctx) => {
    const { start, end } = window(ctx.dataset.seededAt);
    return postJson(
      `/api/v1/analytics/${ctx.dataset.appId}/campaigns/search`,
      { limit: LIMIT, filter: { status: ['active', 'paused'], name: 'promo', tags: ['vip'], startDate: start, endDate: end } },
      ctx,
    );
  },
  floorRequest: (ctx) => floorGet('campaigns_search', { app: ctx.dataset.appId, limit: LIMIT, ...window(ctx.dataset.seededAt) }),
  floor: {
    sql:
      'select "app_id", "id", "name", "status", "total_contacts", "sent_count", "tags", "created_at" from "campaigns" ' +
      'where ("campaigns"."app_id" = $1 and "campaigns"."status" in ($2, $3) and "campaigns"."name" ilike $4 and "campaigns"."tags" && $5 ' +
      'and "campaigns"."created_at" >= $6 and "campaigns"."created_at" < $7) order by "campaigns"."created_at" desc, "campaigns"."id" desc limit $8',
    params: (q) => [q.get('app'), 'active', 'paused', '%promo%', '{"vip"}', q.get('start'), q.get('end'), limitOf(q) + 1],
    respond: (rows, q) =>
      listPage(rows, limitOf(q), (r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        total_contacts: r.total_contacts,
        sent_count: r.sent_count,
        created_at: r.created_at instanceof Date ? r.created_at.toISOString() : r.created_at,
      })),
  },
  compare: sameIds,
};
