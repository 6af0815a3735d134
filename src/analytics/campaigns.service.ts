import { arrayOverlaps, gte, lt, sql, type SQL } from 'drizzle-orm';
import { containsText } from '../db/contains.js';
import { keysetList, type Page } from '../db/keyset.js';
import type { RequestContext } from '../runtime.js';
import { dayRange } from '../validation/list-input.js';
import type { CampaignListArgs } from './filters.js';
import { campaigns, type CampaignRow } from './tables.js';

/** The optional values of a page query; which of them a request has is its shape. */
const OPTIONAL = ['statuses', 'search', 'tags', 'from', 'to', 'createdFrom', 'createdBefore'] as const;

const p = (name: string) => sql.placeholder(name);

const list = keysetList({ name: 'campaigns', table: campaigns, appId: campaigns.appId, at: campaigns.createdAt, id: campaigns.id });

/** The filters of one shape, every value a placeholder (arrays as PostgreSQL array text). */
function filters(has: (name: string) => boolean): (SQL | undefined)[] {
  const conditions: (SQL | undefined)[] = [];
  if (has('statuses')) conditions.push(sql`${campaigns.status} = any(${p('statuses')}::text[])`);
  if (has('search')) conditions.push(containsText(campaigns.name, p('search')));
  if (has('tags')) conditions.push(arrayOverlaps(campaigns.tags, sql`${p('tags')}::text[]`));
  // startDate/endDate are whole days, createdFrom/createdBefore ISO datetimes: half-open both.
  if (has('from')) conditions.push(gte(campaigns.createdAt, sql`${p('from')}::timestamptz`));
  if (has('to')) conditions.push(lt(campaigns.createdAt, sql`${p('to')}::timestamptz`));
  if (has('createdFrom')) conditions.push(gte(campaigns.createdAt, sql`${p('createdFrom')}::timestamptz`));
  if (has('createdBefore')) conditions.push(lt(campaigns.createdAt, sql`${p('createdBefore')}::timestamptz`));
  return conditions;
}

/** A PostgreSQL array literal of text values (what drizzle writes for a text[] column). */
const textArray = (values: readonly string[]) => campaigns.tags.mapToDriverValue([...values]) as string;

/** One keyset page of an app's campaigns, newest first; tags match if any is carried. */
export async function listCampaigns(ctx: RequestContext, args: CampaignListArgs): Promise<Page<CampaignRow>> {
  const statuses = args.status?.includes('all') ? [] : (args.status ?? []);
  const { from, to } = dayRange(args.startDate, args.endDate);
  const values: Record<string, unknown> = {
    statuses: statuses.length > 0 ? textArray(statuses) : undefined,
    search: args.search || undefined,
    tags: args.tags && args.tags.length > 0 ? textArray(args.tags) : undefined,
    from: from?.toISOString(),
    to: to?.toISOString(),
    createdFrom: args.createdFrom?.toISOString(),
    createdBefore: args.createdBefore?.toISOString(),
  };
  return list.preparedPage(ctx.runtime.database, ctx.runtime.keys.cursorKeys, args, values, OPTIONAL, filters);
}
