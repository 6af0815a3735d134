import type { Scenario } from '../types.js';
import { listPage, postJson, sameIds } from './common.js';

const DAY = 86_400_000;
const LIMIT = 20;

/** Active or paused campaigns named like "promo", tagged vip, created in the 90 days before seeding. */
const window = (seededAt: string) => ({ start: new Date(Date.parse(seededAt) - 90 * DAY).toISOString(), end: seededAt });

/** The search body (POST campaigns/search), sent to the service and the floor alike. */
function searchBody(seededAt: string) {
  const { start, end } = window(seededAt);
  return { limit: LIMIT, filter: { status: ['active', 'paused'], name: 'promo', tags: ['vip'], startDate: start, endDate: end } };
}
type SearchBody = ReturnType<typeof searchBody>;

export const campaignsSearch: Scenario = {
  name: 'campaigns_search',
  title: 'Campaigns search: status, name, tag, date window (REST POST)',
  request: (ctx) => postJson(`/api/v1/analytics/${ctx.dataset.appId}/campaigns/search`, searchBody(ctx.dataset.seededAt), ctx),
  // The same POST and body: the floor reads and parses it, as answering this request takes.
  floorRequest: (ctx) => postJson(`/campaigns_search?app=${ctx.dataset.appId}`, searchBody(ctx.dataset.seededAt), undefined),
  floor: {
    sql:
      'select "app_id", "id", "name", "status", "total_contacts", "sent_count", "tags", "created_at" from "campaigns" ' +
      'where ("campaigns"."app_id" = $1 and "campaigns"."status" in ($2, $3) and strpos(lower("campaigns"."name"), lower($4::text)) > 0 and "campaigns"."tags" && $5 ' +
      'and "campaigns"."created_at" >= $6 and "campaigns"."created_at" < $7) order by "campaigns"."created_at" desc, "campaigns"."id" desc limit $8',
    params: (q, { limit, filter }: SearchBody) => [
      q.get('app'),
      filter.status[0],
      filter.status[1],
      filter.name,
      `{${filter.tags.map((tag) => JSON.stringify(tag)).join(',')}}`,
      filter.startDate,
      filter.endDate,
      limit + 1,
    ],
    respond: (rows) =>
      listPage(rows, LIMIT, (r) => ({
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
