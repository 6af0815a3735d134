import { z } from 'zod';
import { isoDay, MAX_PAGE, pageSize, sqlText } from '../validation/list-input.js';

// Query vocabularies shared by the GraphQL arguments and the REST paths: the states a message can be in.
export const messageStatuses = ['pending', 'queued', 'sent', 'delivered', 'read', 'failed', 'flow_handled', 'received'] as const;
export const directions = ['inbound', 'outbound'] as const;

/** Each filter once; GraphQL arguments validate with these, the service parses the whole set. */
export const messageFilters = {
  appId: z.uuid(),
  first: z.number().int().min(1).max(MAX_PAGE),
  after: z.string().max(512),
  status: z.enum(messageStatuses),
  direction: z.enum(directions),
  channel: sqlText(0, 100),
  messageType: sqlText(0, 100),
  source: sqlText(0, 100),
  destination: sqlText(0, 100),
  search: sqlText(1, 200),
  startDate: isoDay,
  endDate: isoDay,
  /** A message id as the import and inbound events bound it. */
  messageId: sqlText(1, 200),
};

const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);

export const messageListArgs = z
  .object({
    appId: messageFilters.appId,
    first: pageSize,
    after: optional(messageFilters.after),
    last: pageSize,
    before: optional(messageFilters.after),
    status: optional(messageFilters.status),
    direction: optional(messageFilters.direction),
    channel: optional(messageFilters.channel),
    messageType: optional(messageFilters.messageType),
    source: optional(messageFilters.source),
    destination: optional(messageFilters.destination),
    search: optional(messageFilters.search),
    startDate: optional(messageFilters.startDate),
    endDate: optional(messageFilters.endDate),
  })
  .refine((a) => !a.startDate || !a.endDate || a.startDate <= a.endDate, {
    message: 'must not be before startDate',
    path: ['endDate'],
    params: { code: 'invalid_value' },
  });
export type MessageListArgs = z.output<typeof messageListArgs>;

// Campaign status filter values; `all` means no filter.
export const campaignStatuses = ['active', 'completed', 'paused', 'failed', 'scheduled', 'running'] as const;
export const campaignStatusFilters = ['all', ...campaignStatuses] as const;

export const campaignFilters = {
  first: messageFilters.first,
  after: messageFilters.after,
  status: z.array(z.enum(campaignStatusFilters)).max(7),
  search: sqlText(1, 200),
  tags: z.array(sqlText(1, 100)).max(50),
  startDate: isoDay,
  endDate: isoDay,
  createdFrom: z.date(),
  createdBefore: z.date(),
};

export const campaignListArgs = z
  .object({
    appId: z.uuid(),
    first: pageSize,
    after: optional(campaignFilters.after),
    last: pageSize,
    before: optional(campaignFilters.after),
    status: optional(campaignFilters.status),
    search: optional(campaignFilters.search),
    tags: optional(campaignFilters.tags),
    startDate: optional(campaignFilters.startDate),
    endDate: optional(campaignFilters.endDate),
    createdFrom: optional(campaignFilters.createdFrom),
    createdBefore: optional(campaignFilters.createdBefore),
  })
  .refine((a) => !a.startDate || !a.endDate || a.startDate <= a.endDate, {
    message: 'must not be before startDate',
    path: ['endDate'],
    params: { code: 'invalid_value' },
  })
  .refine((a) => !a.createdFrom || !a.createdBefore || a.createdFrom < a.createdBefore, {
    message: 'must be after the start',
    path: ['createdBefore'],
    params: { code: 'invalid_value' },
  });
export type CampaignListArgs = z.output<typeof campaignListArgs>;
