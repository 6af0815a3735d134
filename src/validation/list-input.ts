import { z } from 'zod';
import { dayString } from '../time/instant-input.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/**
 * A page size (first or last) given, at most 200; beyond, 400 rather than a silently shorter page.
 * Left out it stays undefined: which of first and last was given decides the direction, and the
 * default of 50 applies after (db/keyset.ts pageWindow).
 */
export const pageSizeValue = z.number().int().min(1).max(MAX_PAGE);

/** A page size as a list's arguments take it: see pageSizeValue; undefined when left out. */
export const pageSize = pageSizeValue.nullish().transform((v) => v ?? undefined);

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
