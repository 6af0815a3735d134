import { z } from 'zod';
import { refuseUnstorableText } from '../validation/storable.js';
import { containsEmoji, containsMarkdown, exceedsCharacterLimit } from './text-rules.js';

// Outbound message bodies: WhatsApp interactive Flow and Product List messages, and our own
// template send. Every issue carries a path relative to the body. Built-in zod issues are mapped to
// API detail codes by src/errors/zod-details.ts; our own checks add `code: 'custom'` with the API
// code in `params.code`.
//
// Counting: limits on text a person reads (header, body, footer, section title, flow_cta) count
// grapheme clusters (see text-rules.ts) and report `too_long`. Machine identifiers (flow_token)
// keep zod's built-in length, in UTF-16 code units.
//
// Storable text: every string of a body, object keys and free-form JSON (metadata, a Flow's data)
// included, is checked for what PostgreSQL cannot store (NUL, a lone UTF-16 surrogate): the body
// is written to jsonb as given, and the database's refusal would name no field (or be a 500).
//
// Completeness: zod skips an object's refinements once a field inside it has failed, so each
// cross-field check passes `when` and runs on whatever parsed, reporting all issues in one response.

export const MAX_PRODUCT_ITEMS = 30;

type Issue = Parameters<z.core.$RefinementCtx['addIssue']>[0];
type DetailCode = 'required' | 'invalid_type' | 'invalid_format' | 'invalid_value' | 'too_small' | 'too_big' | 'too_long' | 'unrecognized';

const issue = (path: PropertyKey[], message: string, code: DetailCode): Issue => ({ code: 'custom', path, message, params: { code } });

/** A JSON object: not null, not an array, not a class instance. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Runs a refinement even when fields inside the object failed, as long as it is an object. */
const whenObject = { when: (payload: z.core.ParsePayload) => isPlainObject(payload.value) };

const nonEmpty = z.string().min(1, { message: 'must not be empty' });

/** Text shown to a person: non-empty, at most `max` user-perceived characters. */
function text(max: number) {
  return nonEmpty.refine((s) => !exceedsCharacterLimit(s, max), {
    message: `must be at most ${max} characters`,
    params: { code: 'too_long' },
  });
}

const phoneNumber = z.string().regex(/^\+?\d{6,20}$/, { message: 'must be a phone number of 6 to 20 digits, optionally with a leading +' });

/** Free-form JSON object: any keys, any values. */
const freeForm = z.record(z.string(), z.unknown());

const flowToken = nonEmpty.max(512, { message: 'must be at most 512 characters' });

// Shared by all three kinds.
const envelope = {
  to: phoneNumber,
  tags: z.array(z.string()).optional(),
  metadata: z
    .custom<Record<string, unknown> | string>((v) => typeof v === 'string' || isPlainObject(v), {
      message: 'must be an object or a string',
      params: { code: 'invalid_type' },
    })
    .optional(),
};

const bodyText = z.strictObject({ text: text(1024) });
const footerText = z.strictObject({ text: text(60) });
const textHeader = z.strictObject({ type: z.literal('text'), text: text(60) });

// ---------------------------------------------------------------------------------------------
// Flow

const flowParameters = z
  .strictObject({
    flow_message_version: z.literal('3'),
    flow_token: flowToken,
    flow_id: nonEmpty.optional(),
    flow_name: nonEmpty.optional(),
    flow_cta: text(20)
      .refine((s) => !containsEmoji(s), { message: 'must not contain emoji', params: { code: 'invalid_value' } })
      .refine((s) => !containsMarkdown(s), {
        message: 'must not contain formatting (*, _, ~, ` or [text](url) links)',
        params: { code: 'invalid_value' },
      }),
    flow_action: z.enum(['navigate', 'data_exchange']).default('navigate'),
    flow_action_payload: z
      .strictObject({
        screen: nonEmpty.optional(), // required with navigate, checked below
        data: freeForm.optional(),
      })
      .optional(),
    mode: z.enum(['published', 'draft']).default('published'),
  })
  .superRefine((_, ctx) => {
    // Under `when`, fields may hold invalid input: read them as unknown.
    const p = ctx.value as Record<string, unknown>;
    const hasId = p.flow_id !== undefined;
    const hasName = p.flow_name !== undefined;
    if (hasId && hasName) ctx.addIssue(issue(['flow_id'], 'give either flow_id or flow_name, not both', 'invalid_value'));
    if (!hasId && !hasName) ctx.addIssue(issue(['flow_id'], 'flow_id or flow_name is required', 'required'));

    const payload = p.flow_action_payload;
    if (p.flow_action === 'navigate') {
      if (payload === undefined) {
        ctx.addIssue(issue(['flow_action_payload'], 'is required when flow_action is navigate', 'required'));
      } else if (isPlainObject(payload) && payload.screen === undefined) {
        ctx.addIssue(issue(['flow_action_payload', 'screen'], 'is required when flow_action is navigate', 'required'));
      }
    } else if (p.flow_action === 'data_exchange' && payload !== undefined) {
      ctx.addIssue(issue(['flow_action_payload'], 'must be omitted when flow_action is data_exchange', 'unrecognized'));
    }
  }, whenObject);

export const flowMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('interactive'),
  interactive: z.strictObject({
    type: z.literal('flow'),
    header: textHeader.optional(),
    body: bodyText,
    footer: footerText.optional(),
    action: z.strictObject({
      name: z.literal('flow'),
      parameters: flowParameters,
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Product List

const productSections = z
  .array(
    z.strictObject({
      title: text(24),
      product_items: z
        .array(z.strictObject({ product_retailer_id: nonEmpty }))
        .min(1, { message: 'must contain at least 1 product item' }),
    }),
  )
  .min(1, { message: 'must contain at least 1 section' })
  .superRefine(
    (_, ctx) => {
      let total = 0;
      for (const section of ctx.value as unknown[]) {
        if (isPlainObject(section) && Array.isArray(section.product_items)) total += section.product_items.length;
      }
      if (total > MAX_PRODUCT_ITEMS) {
        ctx.addIssue(issue([], `must contain at most ${MAX_PRODUCT_ITEMS} product items in total (found ${total})`, 'too_big'));
      }
    },
    { when: (payload) => Array.isArray(payload.value) },
  );

export const productListMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('interactive'),
  interactive: z.strictObject({
    type: z.literal('product_list'),
    header: textHeader,
    body: bodyText,
    footer: footerText.optional(),
    action: z.strictObject({
      catalog_id: nonEmpty,
      sections: productSections,
    }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Template (our own design)

export const templateMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('template'),
  template: z.strictObject({
    name: nonEmpty,
    language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'must be a locale code such as en or en_US' }),
    parameters: z.array(z.string()).optional(), // body placeholder values, in order
    flow_token: flowToken.optional(), // for a template with a Flow button
    flow_action_data: freeForm.optional(),
  }),
});

export type FlowMessage = z.infer<typeof flowMessageSchema>;
export type ProductListMessage = z.infer<typeof productListMessageSchema>;
export type TemplateMessage = z.infer<typeof templateMessageSchema>;

// ---------------------------------------------------------------------------------------------
// Any send: dispatch on the kind, then report only the chosen schema's issues. A z.union would
// report every branch's issues for a bad body, and z.discriminatedUnion cannot key on the nested
// `interactive.type` (flow and product_list share `type: 'interactive'`).

const interactiveKinds = { flow: flowMessageSchema, product_list: productListMessageSchema } as const;

// Validated alongside an unknown kind, so the response still lists every issue it can.
const envelopeOnly = z.looseObject(envelope);

function kindOf(input: unknown): { schema: z.ZodType<SendMessageOutput> } | { issue: Issue } {
  if (!isPlainObject(input)) return { issue: issue([], 'must be an object', 'invalid_type') };
  const { type } = input;
  if (type === 'template') return { schema: templateMessageSchema };
  if (type === undefined) return { issue: issue(['type'], 'is required: template or interactive', 'required') };
  if (type !== 'interactive') return { issue: issue(['type'], 'must be template or interactive', 'invalid_value') };
  const interactive = input.interactive;
  // Missing or malformed: either interactive schema reports it, with the envelope's own issues.
  if (!isPlainObject(interactive)) return { schema: flowMessageSchema };
  const kind = interactive.type;
  if (kind === 'flow' || kind === 'product_list') return { schema: interactiveKinds[kind] };
  if (kind === undefined) return { issue: issue(['interactive', 'type'], 'is required: flow or product_list', 'required') };
  return { issue: issue(['interactive', 'type'], 'must be flow or product_list', 'invalid_value') };
}

type SendMessageOutput = FlowMessage | ProductListMessage | TemplateMessage;

// Final issues (message and path set) are valid raw issues at run time; the types differ only in
// which fields are optional. Finalizing them again keeps their message.
const asRaw = (issues: z.core.$ZodIssue[]) => issues as unknown as z.core.$ZodRawIssue[];

/**
 * A schema with the storable-text check in front: every string of the body, object keys and
 * free-form JSON included. The GraphQL inputs of sendFlowMessage and the others use it too.
 */
export function withStorableText<T>(schema: z.ZodType<T>) {
  return z.unknown().transform((input, ctx): T => {
    refuseUnstorableText(input, ctx);
    const parsed = schema.safeParse(input);
    // Already final (message and path set); an enclosing schema prefixes the path as usual.
    if (!parsed.success) ctx.issues.push(...asRaw(parsed.error.issues));
    return parsed.success && ctx.issues.length === 0 ? parsed.data : z.NEVER;
  });
}

/** Any of the three kinds, chosen by `type` (and `interactive.type`). */
const byKind = z.unknown().transform((input, ctx): SendMessageOutput => {
  const kind = kindOf(input);
  if ('issue' in kind) {
    ctx.addIssue(kind.issue);
    if (isPlainObject(input)) {
      const rest = envelopeOnly.safeParse(input);
      if (!rest.success) ctx.issues.push(...asRaw(rest.error.issues));
    }
    return z.NEVER;
  }
  const parsed = kind.schema.safeParse(input);
  if (parsed.success) return parsed.data;
  ctx.issues.push(...asRaw(parsed.error.issues));
  return z.NEVER;
});

export const sendMessageSchema = withStorableText(byKind);

export type SendMessage = z.infer<typeof sendMessageSchema>;

export function countProductItems(msg: ProductListMessage): number {
  return msg.interactive.action.sections.reduce((n, section) => n + section.product_items.length, 0);
}
