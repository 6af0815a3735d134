import { z } from 'zod';
import { exceedsCharacterLimit, MAX_CODE_UNITS_PER_CHARACTER } from '../text-rules.js';

// Parts every kind's body is built from. Every issue carries a path relative to the body. Built-in
// zod issues are mapped to API detail codes by src/errors/zod-details.ts; our own checks add
// `code: 'custom'` with the API code in `params.code`.
//
// Counting: limits on text a person reads (header, body, footer, section title, flow_cta) count
// grapheme clusters (see text-rules.ts) and report `too_long`. Machine identifiers (flow_token)
// keep zod's built-in length, in UTF-16 code units.
//
// Completeness: zod skips an object's refinements once a field inside it has failed, so each
// cross-field check passes `when` and runs on whatever parsed, reporting all issues in one response.

export type Issue = Parameters<z.core.$RefinementCtx['addIssue']>[0];
type DetailCode = 'required' | 'invalid_type' | 'invalid_format' | 'invalid_value' | 'too_small' | 'too_big' | 'too_long' | 'unrecognized';

export const issue = (path: PropertyKey[], message: string, code: DetailCode): Issue => ({ code: 'custom', path, message, params: { code } });

/** A JSON object: not null, not an array, not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Runs a refinement even when fields inside the object failed, as long as it is an object. */
export const whenObject = { when: (payload: z.core.ParsePayload) => isPlainObject(payload.value) };

export const nonEmpty = z.string().min(1, { message: 'must not be empty' });

/** Text shown to a person: non-empty, at most `max` user-perceived characters. */
export function text(max: number) {
  return nonEmpty
    .superRefine((s, ctx) => {
      // Code units first: a string too long in them is not segmented at all.
      if (s.length > max * MAX_CODE_UNITS_PER_CHARACTER) {
        ctx.addIssue(issue([], `must be at most ${max * MAX_CODE_UNITS_PER_CHARACTER} UTF-16 code units (${MAX_CODE_UNITS_PER_CHARACTER} per character)`, 'too_long'));
      } else if (exceedsCharacterLimit(s, max)) {
        ctx.addIssue(issue([], `must be at most ${max} characters`, 'too_long'));
      }
    })
    // JSON Schema's maxLength counts code points, which would refuse text the API accepts: the
    // document states the limit as an extension, in the unit the API counts.
    .meta({ description: `At most ${max} characters (grapheme clusters), and ${max * MAX_CODE_UNITS_PER_CHARACTER} UTF-16 code units.`, 'x-max-characters': max });
}

const phoneNumber = z.string().regex(/^\+?\d{6,20}$/, { message: 'must be a phone number of 6 to 20 digits, optionally with a leading +' });

/** Free-form JSON object: any keys, any values. */
export const freeForm = z.record(z.string(), z.unknown());

export const flowToken = nonEmpty.max(512, { message: 'must be at most 512 characters' });

/** Shared by every kind. */
export const envelope = {
  to: phoneNumber,
  tags: z.array(z.string()).optional(),
  metadata: z
    .custom<Record<string, unknown> | string>((v) => typeof v === 'string' || isPlainObject(v), {
      message: 'must be an object or a string',
      params: { code: 'invalid_type' },
    })
    .meta({ description: 'Free-form: an object or a string.', anyOf: [{ type: 'object' }, { type: 'string' }] })
    .optional(),
};

export const bodyText = z.strictObject({ text: text(1024) });
export const footerText = z.strictObject({ text: text(60) });
export const textHeader = z.strictObject({ type: z.literal('text'), text: text(60) });

/** An interactive kind's body: envelope, type interactive, and an interactive part whose header and action vary by kind. */
export function interactiveMessage<K extends string, H extends z.ZodType, A extends z.ZodType>(type: K, header: H, action: A) {
  const interactive = z.strictObject({ type: z.literal(type), header, body: bodyText, footer: footerText.optional(), action });
  return { interactive, message: z.strictObject({ ...envelope, type: z.literal('interactive'), interactive }) };
}
