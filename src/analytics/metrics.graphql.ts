import { z } from 'zod';
import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { sqlText } from '../validation/list-input.js';
import { funnelCountFields, funnelFields } from './funnel.graphql.js';
import { dailyMetrics, summaryMetrics, type DailyMetric, type SummaryMetrics } from './metrics.service.js';
import { tagStats, campaignTags, type TagStats } from './tags.service.js';

const DailyMetricRef = builder.objectRef<DailyMetric>('DailyMetric').implement({
  description: 'One calendar day of the outbound funnel in the requested time zone.',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'YYYY-MM-DD in the requested time zone.' }),
    ...funnelFields(t),
  }),
});

const SummaryMetricsRef = builder.objectRef<SummaryMetrics>('SummaryMetrics').implement({
  description: 'The outbound funnel over a range, with distinct contacts.',
  fields: (t) => ({
    ...funnelFields(t),
    contacts: t.exposeInt('contacts', { description: 'Distinct user_phone.' }),
  }),
});

const TagStatsRef = builder.objectRef<TagStats>('TagStats').implement({
  description: 'Statistics of the campaigns carrying a tag.',
  fields: (t) => ({
    campaignCount: t.exposeInt('campaignCount', { description: 'Campaigns carrying the tag.' }),
    ...funnelCountFields(t),
    lastUsed: t.expose('lastUsed', { type: 'DateTime', description: 'created_at of the newest campaign carrying the tag.' }),
  }),
});

const analyticsScope = (appId: string) => ({ $all: { scope: 'analytics:read' as const, app: appId } });

builder.queryFields((t) => ({
  dailyMetrics: t.field({
    type: [DailyMetricRef],
    description:
      'Outbound funnel per calendar day in `timezone` over [startDate, endDate) (default the last 30 days; a startDate alone runs until now), every day present. endDate must be after startDate and the range at most 400 days. Scope: analytics:read.',
    authScopes: (_root, args) => analyticsScope(args.appId),
    complexity: { field: 5, multiplier: 1 },
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      startDate: t.arg({ description: 'Range start, ISO 8601 (inclusive).', type: 'DateTime' }),
      endDate: t.arg({ description: 'Range end, ISO 8601 (exclusive).', type: 'DateTime' }),
      timezone: t.arg.string({ description: 'IANA time zone name (e.g. Europe/Lisbon), default UTC.', validate: { schema: z.string().min(1).max(64) } }),
    },
    resolve: (_root, args, ctx) => dailyMetrics(ctx, args),
  }),
  summaryMetrics: t.field({
    type: SummaryMetricsRef,
    description:
      'Outbound funnel over [startDate, endDate) (default the last 30 days; a startDate alone runs until now) with distinct contacts. endDate must be after startDate and the range at most 400 days. Scope: analytics:read.',
    authScopes: (_root, args) => analyticsScope(args.appId),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), startDate: t.arg({ description: 'Range start, ISO 8601 (inclusive).', type: 'DateTime' }), endDate: t.arg({ description: 'Range end, ISO 8601 (exclusive).', type: 'DateTime' }) },
    resolve: (_root, args, ctx) => summaryMetrics(ctx, args),
  }),
  campaignTags: t.stringList({
    description: 'Distinct campaign tags of the app, sorted. Scope: analytics:read.',
    authScopes: (_root, args) => analyticsScope(args.appId),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }) },
    resolve: (_root, args, ctx) => campaignTags(ctx, args.appId),
  }),
  tagStats: t.field({
    type: TagStatsRef,
    description: 'Statistics of one tag; not_found when no campaign carries it. Scope: analytics:read.',
    authScopes: (_root, args) => analyticsScope(args.appId),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), tag: t.arg.string({ description: 'The tag.', required: true, validate: { schema: sqlText(1, 100) } }) },
    resolve: (_root, args, ctx) => tagStats(ctx, args.appId, args.tag),
  }),
}));

// The same fields on App, for this app.
builder.objectFields(AppRef, (t) => ({
  dailyMetrics: t.field({
    type: [DailyMetricRef],
    description: 'Outbound funnel per calendar day in `timezone` over [startDate, endDate), as the root dailyMetrics. Scope: analytics:read.',
    authScopes: (app) => analyticsScope(app.id),
    complexity: { field: 5, multiplier: 1 },
    args: {
      startDate: t.arg({ description: 'Range start, ISO 8601 (inclusive).', type: 'DateTime' }),
      endDate: t.arg({ description: 'Range end, ISO 8601 (exclusive).', type: 'DateTime' }),
      timezone: t.arg.string({ description: 'IANA time zone, default UTC.', validate: { schema: z.string().min(1).max(64) } }),
    },
    resolve: (app, args, ctx) => dailyMetrics(ctx, { ...args, appId: app.id }),
  }),
  summaryMetrics: t.field({
    type: SummaryMetricsRef,
    description: 'Outbound funnel over [startDate, endDate) with distinct contacts, as the root summaryMetrics. Scope: analytics:read.',
    authScopes: (app) => analyticsScope(app.id),
    args: { startDate: t.arg({ description: 'Range start, ISO 8601 (inclusive).', type: 'DateTime' }), endDate: t.arg({ description: 'Range end, ISO 8601 (exclusive).', type: 'DateTime' }) },
    resolve: (app, args, ctx) => summaryMetrics(ctx, { ...args, appId: app.id }),
  }),
  campaignTags: t.stringList({
    description: 'Distinct campaign tags of this app, sorted. Scope: analytics:read.',
    authScopes: (app) => analyticsScope(app.id),
    resolve: (app, _args, ctx) => campaignTags(ctx, app.id),
  }),
  tagStats: t.field({
    type: TagStatsRef,
    description: 'Statistics of one tag of this app; not_found when no campaign carries it. Scope: analytics:read.',
    authScopes: (app) => analyticsScope(app.id),
    args: { tag: t.arg.string({ description: 'The tag.', required: true, validate: { schema: sqlText(1, 100) } }) },
    resolve: (app, args, ctx) => tagStats(ctx, app.id, args.tag),
  }),
}));
