import { z } from 'zod';
import { detailCodes, validationFailed, type DetailCode, type ErrorDetail } from './app-error.js';

const REQUIRED = 'Required';

// zod 4 drops `input` from issues unless asked, so a missing value is marked by its message.
z.config({
  customError: (issue) => (isMissing(issue) ? REQUIRED : undefined),
});

/** A value that is absent, as opposed to present and wrong: a literal, an enum, a union's discriminator. */
function isMissing(issue: z.core.$ZodRawIssue): boolean {
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') return issue.input === undefined;
  if (issue.code === 'invalid_union' && 'discriminator' in issue && typeof issue.discriminator === 'string') {
    const input = issue.input as Record<string, unknown> | undefined;
    return typeof input === 'object' && input !== null && input[issue.discriminator] === undefined;
  }
  return false;
}

// Maps zod issues onto the API's detail codes, with dotted field paths.
// Custom checks name their code in `params.code`.
export function zodIssuesToDetails(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): ErrorDetail[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: fieldPath([...prefix, ...issue.path, key]),
        message: `Unrecognized field "${key}"`,
        code: 'unrecognized' as const,
      }));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // Report the branch that got furthest: its issues are the most specific.
      const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
      return zodIssuesToDetails(best, [...prefix, ...issue.path]);
    }
    return [{ field: fieldPath([...prefix, ...issue.path]), message: issue.message, code: detailCode(issue) }];
  });
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

function detailCode(issue: z.core.$ZodIssue): DetailCode {
  switch (issue.code) {
    case 'invalid_type':
      return issue.message === REQUIRED ? 'required' : 'invalid_type';
    case 'too_small':
      return 'too_small';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'too_big';
    case 'invalid_format':
    case 'not_multiple_of':
      return 'invalid_format';
    case 'invalid_value':
    case 'invalid_union':
      return issue.message === REQUIRED ? 'required' : 'invalid_value';
    case 'invalid_key':
    case 'invalid_element':
      return 'invalid_value';
    case 'custom': {
      const code = (issue.params as { code?: string } | undefined)?.code;
      return (detailCodes as readonly string[]).includes(code ?? '') ? (code as DetailCode) : 'invalid_value';
    }
    default:
      return 'invalid_value';
  }
}

/** Parses service input, throwing the validation envelope with field paths on failure. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  type: 'validation_error' | 'invalid_request' = 'validation_error',
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationFailed(zodIssuesToDetails(parsed.error.issues), type);
  return parsed.data;
}

/**
 * How far ahead of our clock a provider's event time may be: its clock may run a little fast,
 * but an event cannot have happened later than now (a far-future time would inflate billing).
 */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const FUTURE = 'must not be in the future';
const inFuture = (at: Date, now: Date) => at.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS;

/**
 * An event's time that is not in the future beyond MAX_CLOCK_SKEW_MS, for a schema built per run
 * (an import): `now` is the run's clock, read at each parse.
 */
export const notInFuture = <S extends z.ZodType<Date>>(schema: S, now: () => Date) =>
  schema.refine((d) => !inFuture(d, now()), { message: FUTURE, params: { code: 'invalid_value' } });

/**
 * The same rule for a schema built once (GraphQL arguments), checked after parsing with the
 * request's clock: throws validation_error naming `field`, as the parse would.
 */
export function refuseFutureTime(now: Date, field: string, at: Date | null | undefined): void {
  if (at && inFuture(at, now)) throw validationFailed([{ field, code: 'invalid_value', message: FUTURE }]);
}
