import { z } from 'zod';

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

const NON_FINITE_MESSAGE = 'must be a finite number (out of range: larger than about 1.8e308)';

/**
 * One issue per string of a JSON value, object keys included, that PostgreSQL cannot store, at
 * its path below `path`, one per number that is not finite (1e999 parses as Infinity, which
 * would be stored as null), and one where it nests deeper than MAX_JSON_DEPTH (not looked into):
 * free-form JSON (metadata, a Flow's data) is written to jsonb as given. A loop, not recursion,
 * linear in the size of the value: a deeply nested body must neither overflow the stack here nor
 * hold the event loop (copying the path at each level would make it quadratic).
 */
export function unstorableTextIssues(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; message: string; code: 'invalid_format' | 'invalid_value' | 'too_big' }[] {
  const found: { path: PropertyKey[]; message: string; code: 'invalid_format' | 'invalid_value' | 'too_big' }[] = [];
  const pending: JsonNode[] = [{ value, depth: 0 }];
  for (let node = pending.pop(); node && found.length < MAX_JSON_ISSUES; node = pending.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      const message = unstorableText(current);
      if (message) found.push({ path: pathOf(node, path), message, code: 'invalid_format' });
    } else if (typeof current === 'number') {
      // JSON.parse reads 1e999 as Infinity, which JSON.stringify writes back as null: refused, not lost.
      if (!Number.isFinite(current)) found.push({ path: pathOf(node, path), message: NON_FINITE_MESSAGE, code: 'invalid_value' });
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

/** A free-form JSON object (metadata) PostgreSQL can store: every key, string and number in it. */
export const storableJsonObject = () => z.record(z.string(), z.unknown()).superRefine((value, ctx) => refuseUnstorableText(value, ctx));
