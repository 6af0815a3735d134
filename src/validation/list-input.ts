import { z } from 'zod';
import { dayString } from '../time/instant-input.js';

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
