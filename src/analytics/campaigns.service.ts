import { and, arrayOverlaps, desc, eq, gte, ilike, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { byShape, shapeOf } from '../db/prepared.js';
import type { RequestContext } from '../runtime.js';
import { containsPattern, dayRange } from '../validation/list-input.js';
import type { CampaignListArgs } from './filters.js';
import { afterPlaceholders, appList, keysetValues, toPage, type Page } from '../db/keyset.js';
import { campaigns, type CampaignRow } from './tables.js';

const LIST = 'campaigns';

/** The optional values of a page query; which of them a request has is its shape. */
const OPTIONAL = ['afterAt', 'statuses', 'search', 'tags', 'from', 'to', 'createdFrom', 'createdBefore'] as const;

const p = (name: string) => sql.placeholder(name);

/** The page query for one shape, every value a placeholder (arrays as PostgreSQL array text). */
function pageQuery(db: Db, shape: readonly string[]) {
  const has = (name: string) => shape.includes(name);
  const conditions: (SQL | undefined)[] = [eq(campaigns.appId, p('appId'))];
  if (has('afterAt')) conditions.push(afterPlaceholders(campaigns.createdAt, campaigns.id));
  if (has('statuses')) conditions.push(sql`${campaigns.status} = any(${p('statuses')}::text[])`);
  if (has('search')) conditions.push(ilike(campaigns.name, p('search')));
  if (has('tags')) conditions.push(arrayOverlaps(campaigns.tags, sql`${p('tags')}::text[]`));
  // startDate/endDate are whole days, createdFrom/createdBefore ISO datetimes: half-open both.
  if (has('from')) conditions.push(gte(campaigns.createdAt, sql`${p('from')}::timestamptz`));
  if (has('to')) conditions.push(lt(campaigns.createdAt, sql`${p('to')}::timestamptz`));
  if (has('createdFrom')) conditions.push(gte(campaigns.createdAt, sql`${p('createdFrom')}::timestamptz`));
  if (has('createdBefore')) conditions.push(lt(campaigns.createdAt, sql`${p('createdBefore')}::timestamptz`));
  return db
    .select()
    .from(campaigns)
    .where(and(...conditions))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(p('limit'))
    .prepare(`campaigns_page_${shape.join('_') || 'all'}`);
}

/** A PostgreSQL array literal of text values (what drizzle writes for a text[] column). */
const textArray = (values: readonly string[]) => campaigns.tags.mapToDriverValue([...values]) as string;

/** One keyset page of an app's campaigns, newest first; tags match if any is carried. */
export async function listCampaigns(ctx: RequestContext, args: CampaignListArgs): Promise<Page<CampaignRow>> {
  const statuses = args.status?.includes('all') ? [] : (args.status ?? []);
  const { from, to } = dayRange(args.startDate, args.endDate);
  const values: Record<string, unknown> = {
    statuses: statuses.length > 0 ? textArray(statuses) : undefined,
    search: args.search ? containsPattern(args.search) : undefined,
    tags: args.tags && args.tags.length > 0 ? textArray(args.tags) : undefined,
    from: from?.toISOString(),
    to: to?.toISOString(),
    createdFrom: args.createdFrom?.toISOString(),
    createdBefore: args.createdBefore?.toISOString(),
    // Spread last: on Node 20 each property added after a spread is a slow store.
    ...keysetValues(ctx.runtime.keys.cursorKeys, appList(LIST, args.appId), args),
  };
  const shape = shapeOf(values, OPTIONAL);
  const db = ctx.runtime.database.analyticsDb;
  const rows = await byShape(db, `campaigns:${shape.join(',')}`, () => pageQuery(db, shape)).execute(values);
  return toPage(ctx.runtime.keys.cursorKeys, appList(LIST, args.appId), rows, args.first);
}
