import { z } from 'zod';
import { dayString } from '../time/instant-input.js';

// Query vocabularies shared by the GraphQL arguments and the REST paths: the states a message can be in.
export const messageStatuses = ['pending', 'queued', 'sent', 'delivered', 'read', 'failed', 'flow_handled', 'received'] as const;
export const directions = ['inbound', 'outbound'] as const;

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** Default limit 50, maximum 200; beyond, 400 rather than a silently shorter page. */
export const pageSize = z.number().int().min(1).max(MAX_PAGE).nullish().transform((v) => v ?? DEFAULT_PAGE);

/** YYYY-MM-DD, a real calendar day within INPUT_YEARS. */
export const isoDay = dayString;

/** Whole UTC days, both inclusive: [start 00:00, end + 1 day 00:00). */
export function dayRange(startDate?: string, endDate?: string): { from?: Date; to?: Date } {
  return {
    from: startDate ? new Date(`${startDate}T00:00:00.000Z`) : undefined,
    to: endDate ? new Date(Date.parse(`${endDate}T00:00:00.000Z`) + 86_400_000) : undefined,
  };
}

/** A LIKE pattern matching `term` literally anywhere. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Free text that goes into SQL as a bind parameter: PostgreSQL text cannot hold a NUL byte
 * (the server would fail the query), so it is a validation error here instead of a 500.
 */
export const sqlText = (min: number, max: number) =>
  z.string().min(min).max(max).regex(/^[^\u0000]*$/, { message: 'must not contain NUL characters' });

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
};

const optional = <S extends z.ZodType>(schema: S) => schema.nullish().transform((v) => v ?? undefined);

export const messageListArgs = z
  .object({
    appId: messageFilters.appId,
    first: pageSize,
    after: optional(messageFilters.after),
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
