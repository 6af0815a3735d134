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
 * An IANA time zone name, validated by the runtime's own zone database. Zone names are
 * case-insensitive; one written in another case is kept in the database's (`america/new_york`
 * is stored as America/New_York, `utc` as UTC), since what is stored is shown as written.
 */
export const ianaTimeZone = z
  .string()
  .refine(isTimeZone, { message: 'must be an IANA time zone', params: { code: 'invalid_value' } })
  .transform(canonicalTimeZone);

export function canonicalTimeZone(name: string): string {
  // Only the case is changed: the runtime's own name for a zone may be another alias of it
  // (Asia/Kathmandu resolves to Asia/Katmandu, EST to America/Panama), which is kept as written.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

export function isTimeZone(name: string): boolean {
  // Zone names are short (the longest IANA name is 32 characters): a long text is no zone and
  // is never handed to Intl or kept.
  if (name.length === 0 || name.length > 64) return false;
  if (databaseZones && !databaseZones.has(name.toLowerCase())) return false;
  // Node 22 and later also take UTC offsets ("+05:30") as a time zone; PostgreSQL reads such a
  // string the POSIX way, east and west swapped. Every IANA name starts with a letter.
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zones the database knows (pg_timezone_names, lower-cased: PostgreSQL matches them without
 * regard to case). A zone goes into SQL (`at time zone`) or is stored for later SQL, so a name
 * Node knows and the database does not (US/Pacific-New, Canada/East-Saskatchewan: dropped from
 * newer zone data) must be refused as input, not fail as a 500 when the query runs. Read once a
 * process per database, a closed set of some 1,200 names; with several databases in one process
 * (tests), a zone must be known to all of them.
 */
let databaseZones: Set<string> | undefined;

export function registerDatabaseTimeZones(names: Iterable<string>): void {
  const known = new Set([...names].map((n) => n.toLowerCase()));
  databaseZones = databaseZones ? new Set([...databaseZones].filter((n) => known.has(n))) : known;
}

// Text PostgreSQL cannot store is refused by validation, with the field's path, not by the
// database: NUL fails in text and jsonb alike, and a lone UTF-16 surrogate (JSON "\ud800"
// without its pair) is refused by jsonb ("invalid input syntax for type json", a 500 once it
// reached the write) and silently turned into U+FFFD by text columns.
const NUL_MESSAGE = 'must not contain NUL (\\u0000) characters';
const SURROGATE_MESSAGE = 'must not contain a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair): send well-formed Unicode';

// String.prototype.isWellFormed is in Node 20 but newer than this project's `lib` (ES2023).
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** Why PostgreSQL cannot store `s`, or undefined when it can. */
export function unstorableText(s: string): string | undefined {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (!isWellFormed(s)) return SURROGATE_MESSAGE;
  return undefined;
}

/** A string field PostgreSQL can store: no NUL (a pattern, so OpenAPI shows it), no lone surrogate. */
export const storableText = <S extends z.ZodString | z.ZodURL>(schema: S) =>
  schema.regex(/^[^\u0000]*$/, { message: NUL_MESSAGE }).refine(isWellFormed, { message: SURROGATE_MESSAGE, params: { code: 'invalid_format' } });

/** The former name of storableText, from when it only refused NUL. */
export const noNul = storableText;

/**
 * How deep free-form JSON (metadata, a Flow's data, an inbound reply) may nest. Deeper input is
 * refused: PostgreSQL's jsonb parser and JSON.stringify recurse, and no message needs more.
 */
export const MAX_JSON_DEPTH = 64;
/** Issues reported for one JSON value at most: a body of 100,000 bad strings is refused as well by 50. */
const MAX_JSON_ISSUES = 50;

interface JsonNode {
  value: unknown;
  depth: number;
  key?: PropertyKey;
  parent?: JsonNode;
}

/** A node's path, built only for a node with an issue (copying it at every level was quadratic). */
function pathOf(node: JsonNode, base: readonly PropertyKey[], last?: PropertyKey): PropertyKey[] {
  const keys: PropertyKey[] = last === undefined ? [] : [last];
  for (let n: JsonNode | undefined = node; n?.parent; n = n.parent) keys.push(n.key!);
  return [...base, ...keys.reverse()];
}

/**
 * One issue per string of a JSON value, object keys included, that PostgreSQL cannot store, at
 * its path below `path`, and one where it nests deeper than MAX_JSON_DEPTH (not looked into):
 * free-form JSON (metadata, a Flow's data) is written to jsonb as given. A loop, not recursion,
 * linear in the size of the value: a deeply nested body must neither overflow the stack here nor
 * hold the event loop (a path copied at each of 30,000 levels took 5 s).
 */
export function unstorableTextIssues(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; message: string; code: 'invalid_format' | 'too_big' }[] {
  const found: { path: PropertyKey[]; message: string; code: 'invalid_format' | 'too_big' }[] = [];
  const pending: JsonNode[] = [{ value, depth: 0 }];
  for (let node = pending.pop(); node && found.length < MAX_JSON_ISSUES; node = pending.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      const message = unstorableText(current);
      if (message) found.push({ path: pathOf(node, path), message, code: 'invalid_format' });
    } else if (current !== null && typeof current === 'object') {
      if (node.depth >= MAX_JSON_DEPTH) {
        found.push({ path: pathOf(node, path), message: `must not nest deeper than ${MAX_JSON_DEPTH} levels`, code: 'too_big' });
        continue;
      }
      const depth = node.depth + 1;
      if (Array.isArray(current)) {
        for (let i = current.length - 1; i >= 0; i--) pending.push({ value: current[i], depth, key: i, parent: node });
      } else {
        const entries = Object.entries(current);
        for (const [key] of entries) {
          const keyProblem = unstorableText(key);
          if (keyProblem) found.push({ path: pathOf(node, path, key), message: `key ${keyProblem}`, code: 'invalid_format' });
        }
        // Pushed last first: issues come out in the order of the document.
        for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i]![1], depth, key: entries[i]![0], parent: node });
      }
    }
  }
  return found;
}

/** Adds unstorableTextIssues of the value being checked to a refinement context. */
export function refuseUnstorableText(value: unknown, ctx: z.core.$RefinementCtx, path: PropertyKey[] = []): void {
  for (const found of unstorableTextIssues(value, path)) {
    ctx.addIssue({ code: 'custom', path: found.path, message: found.message, params: { code: found.code } });
  }
}

/** A free-form JSON object (metadata) PostgreSQL can store: every key and string in it. */
export const storableJsonObject = () => z.record(z.string(), z.unknown()).superRefine((value, ctx) => refuseUnstorableText(value, ctx));

/**
 * How far ahead of our clock a provider's event time may be: its clock may run a little fast,
 * but an event cannot have happened later than now (a far-future time would inflate billing).

 */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** An event's time that is not in the future beyond MAX_CLOCK_SKEW_MS. */
export const notInFuture = <S extends z.ZodType<Date>>(schema: S) =>
  schema.refine((d) => d.getTime() <= Date.now() + MAX_CLOCK_SKEW_MS, { message: 'must not be in the future', params: { code: 'invalid_value' } });
