import { z } from 'zod';
import { refuseUnstorableText } from '../validation/storable.js';
import { envelope, isPlainObject, issue, type Issue } from './kinds/common.js';
import { flowMessageSchema, type FlowMessage } from './kinds/flow.js';
import { productListMessageSchema, type ProductListMessage } from './kinds/product-list.js';
import { templateMessageSchema, type TemplateMessage } from './kinds/template.js';

// Outbound message bodies: each kind's schema is in kinds/ (flow.ts, product-list.ts,
// template.ts); this file picks the kind of a body and checks what every body must be.
//
// Storable text: every string of a body, object keys and free-form JSON (metadata, a Flow's data)
// included, is checked for what PostgreSQL cannot store (NUL, a lone UTF-16 surrogate): the body
// is written to jsonb as given, and the database's refusal would name no field (or be a 500).

export { flowMessageSchema, type FlowMessage } from './kinds/flow.js';
export { countProductItems, MAX_PRODUCT_ITEMS, productListMessageSchema, type ProductListMessage } from './kinds/product-list.js';
export { templateMessageSchema, type TemplateMessage } from './kinds/template.js';

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

