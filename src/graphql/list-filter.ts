import type { z } from 'zod';
import { validationFailed } from '../errors/app-error.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import { builder, type ValidationErrorType } from './builder.js';
import { zodInputFields, type InputFieldHints } from './zod-input.js';

// A list's filter input is the zod object that validates its arguments, less the app and the
// page: one schema states each filter, its type, and its checks for both the loose arguments of
// the root field and the `filter` input.

/** The arguments every list has besides its filters. */
const PAGE_KEYS = ['appId', 'first', 'after', 'last', 'before'] as const;
type PageKey = (typeof PAGE_KEYS)[number];
const isPageKey = (key: PropertyKey) => (PAGE_KEYS as readonly PropertyKey[]).includes(key);

/** The filter fields of a list's argument schema: its shape without appId and the page arguments. */
export function filterShape<Shape extends z.core.$ZodShape>(schema: { shape: Shape }): { shape: Omit<Shape, PageKey> } {
  return { shape: Object.fromEntries(Object.entries(schema.shape).filter(([key]) => !isPageKey(key))) as Omit<Shape, PageKey> };
}

/** A `<List>Filter` input type: one field per filter of the list's argument schema. */
export function filterInput<Shape extends z.core.$ZodShape>(name: string, description: string, schema: { shape: Shape }, hints: InputFieldHints<Omit<Shape, PageKey>>) {
  return builder.inputType(name, { description, fields: (t) => zodInputFields(t, filterShape(schema), hints) as never });
}

/** What a list field receives: the page, the filter input and, on root fields, the loose filter arguments. */
export type ListFieldArgs = { appId: string; first?: number | null; after?: string | null; last?: number | null; before?: string | null; filter?: Record<string, unknown> | null } & Record<string, unknown>;

/**
 * The arguments of a list, parsed with its schema, from `filter` or from the loose arguments of
 * the root field. Both at once is refused (field `filter`), so no precedence has to be guessed.
 * A refused filter value is reported under `filter.` (filter.status).
 */
export function listArgs<S extends z.ZodType>(schema: S, args: ListFieldArgs, type: ValidationErrorType = 'validation_error'): z.output<S> {
  const { filter, ...rest } = args;
  if (filter === undefined || filter === null) return parse(schema, rest, type, false);
  const loose = Object.keys(rest).filter((key) => !isPageKey(key) && rest[key] !== undefined && rest[key] !== null);
  if (loose.length > 0) {
    throw validationFailed(
      [{ field: 'filter', code: 'invalid_value', message: `give the filters either in filter or as arguments, not both (also given: ${loose.join(', ')})` }],
      type,
    );
  }
  const page = Object.fromEntries(Object.entries(rest).filter(([key]) => isPageKey(key)));
  return parse(schema, { ...filter, ...page }, type, true);
}

function parse<S extends z.ZodType>(schema: S, input: unknown, type: ValidationErrorType, inFilter: boolean): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => (inFilter && issue.path.length > 0 && !isPageKey(issue.path[0]!) ? { ...issue, path: ['filter', ...issue.path] } : issue));
  throw validationFailed(zodIssuesToDetails(issues), type);
}
