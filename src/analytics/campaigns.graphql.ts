import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { closedEnum } from '../graphql/enums.js';
import { campaignStatsLoader } from './campaign-stats.js';
import { listCampaigns } from './campaigns.service.js';
import type { FunnelCounts } from './funnel.js';
import { funnelFields } from './funnel.graphql.js';
import { campaignFilters, campaignListArgs, campaignStatuses, campaignStatusFilters } from './filters.js';
import { campaigns, type CampaignRow } from './tables.js';
import { asNode } from '../graphql/node.js';

export const FunnelRef = builder.objectRef<FunnelCounts>('Funnel').implement({
  description: 'Outbound message funnel: sent = sent+delivered+read, delivered = delivered+read, read, failed, cost.',
  fields: (t) => funnelFields(t),
});

const CampaignStatusEnum = closedEnum('CampaignStatus', campaignStatuses, 'The state of a campaign.');
const CampaignStatusFilterEnum = closedEnum('CampaignStatusFilter', campaignStatusFilters, 'A campaign state to filter by; all means no filter.');

export const CampaignRef = builder.objectRef<CampaignRow>('Campaign').implement({
  description: 'A messaging campaign. Scope: campaigns:read.',
  fields: (t) => ({
    campaignId: t.exposeID('id', { description: 'Campaign id (UUID), its raw id.' }),
    name: t.exposeString('name', { description: 'Campaign name.' }),
    status: t.expose('status', { type: CampaignStatusEnum, description: 'The state of the campaign.' }),
    totalContacts: t.exposeInt('totalContacts', { description: 'Contacts targeted.' }),
    sentCount: t.exposeInt('sentCount', { description: 'Messages sent so far.' }),
    tags: t.exposeStringList('tags', { description: 'Tags of the campaign.' }),
    createdAt: t.expose('createdAt', { description: 'When the campaign was created (ISO 8601 UTC).', type: 'DateTime' }),
    stats: t.field({
      type: FunnelRef,
      description: "Funnel of the campaign's outbound messages, batched per request (one query per page).",
      resolve: (campaign, _args, ctx) => campaignStatsLoader(ctx).load({ appId: campaign.appId, campaignId: campaign.id }),
    }),
  }),
});

const CampaignConnection = keysetConnection('Campaign', CampaignRef, 'A page of campaigns, newest first (created_at desc, id desc).');

const CampaignFilter = filterInput('CampaignFilter', 'Which campaigns a list holds: every field given must match.', campaignListArgs, {
  status: { description: 'Any of these states; all means no filter.', type: [CampaignStatusFilterEnum] },
  search: 'Case-insensitive substring of the campaign name.',
  tags: 'A campaign matches if it carries any of them.',
  startDate: 'YYYY-MM-DD, UTC, inclusive.',
  endDate: 'YYYY-MM-DD, UTC, inclusive; not before startDate.',
  createdFrom: 'Created at or after this instant.',
  createdBefore: 'Created before this instant; after createdFrom.',
});

const campaignsScope = (appId: string) => ({ $all: { scope: 'campaigns:read' as const, app: appId } });

builder.queryField('campaigns', (t) =>
  t.field({
    type: CampaignConnection,
    description:
      'Campaigns of an app, newest first; the filters of GET /analytics/{appId}/campaigns and POST .../campaigns/search. Scope: campaigns:read.',
    authScopes: (_root, args) => campaignsScope(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: campaignFilters.first, cursor: campaignFilters.after }),
      status: t.arg({ type: [CampaignStatusFilterEnum], description: 'Any of these states; all means no filter.', validate: { schema: campaignFilters.status } }),
      search: t.arg.string({ description: 'Case-insensitive substring of the campaign name.', validate: { schema: campaignFilters.search } }),
      tags: t.arg.stringList({ description: 'A campaign matches if it carries any of them.', validate: { schema: campaignFilters.tags } }),
      startDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: campaignFilters.startDate } }),
      endDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: campaignFilters.endDate } }),
      createdFrom: t.arg({ type: 'DateTime', description: 'Created at or after this instant.' }),
      createdBefore: t.arg({ type: 'DateTime', description: 'Created before this instant.' }),
      filter: t.arg({ type: CampaignFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listCampaigns(ctx, listArgs(campaignListArgs, args))),
  }),
);

builder.objectField(AppRef, 'campaigns', (t) =>
  t.field({
    type: CampaignConnection,
    description: 'Campaigns of this app, newest first (created_at desc, id desc). Scope: campaigns:read.',
    authScopes: (app) => campaignsScope(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, { size: campaignFilters.first, cursor: campaignFilters.after }),
      filter: t.arg({ type: CampaignFilter, description: 'Which campaigns; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listCampaigns(ctx, listArgs(campaignListArgs, { ...args, appId: app.id }))),
  }),
);

asNode(CampaignRef, { table: campaigns, appId: campaigns.appId, id: campaigns.id, uuid: true, scope: 'campaigns:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
