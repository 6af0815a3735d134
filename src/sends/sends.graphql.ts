import type { InputObjectRef } from '@pothos/core';
import { z } from 'zod';
import { detailsUnder } from '../errors/app-error.js';
import { builder } from '../graphql/builder.js';
import { zodInputFields, type InputFieldHint, type InputFieldHints } from '../graphql/zod-input.js';
import { bodyText, envelope, textHeader } from './kinds/common.js';
import { sendMessageSchema, withStorableText, type SendMessage } from './payloads.js';
import { closedEnum } from '../graphql/enums.js';
import { MessageStatusEnum } from '../analytics/messages.graphql.js';
import { sendKinds, sendMessage, sendMessageTypes, type SentMessage } from './service.js';

// Sends: the receipt, the parts every kind's input shares and sendMessage, which takes any kind.
// Each kind's own input and mutation is in kinds/*.graphql.ts. The payload inputs keep WhatsApp's
// snake_case field names, so one zod schema validates the REST body and the GraphQL input alike
// and error paths read the same (interactive.action.parameters.flow_cta). Scope: messages:send.

export const SendKindEnum = closedEnum('SendKind', sendKinds, 'What was sent: a Flow, a Product List or a template message.');
const SendMessageTypeEnum = closedEnum('SendMessageType', sendMessageTypes, 'The message type a send is stored with: a Flow or a Product List is interactive.');

// The receipt is a snapshot of the accepted send (a replay repeats it), not an entity one could
// refetch: it has no global id. `details` reaches the Node, SentMessageDetails, as it is now.
export const SentMessageRef = builder.objectRef<SentMessage & { appId: string }>('SentMessage').implement({
  description: 'A message accepted for delivery (202 data.message on REST). Replays return the first response unchanged.',
  fields: (t) => ({
    messageId: t.exposeString('id', { description: 'The message id (its raw id, the messageId of Message and SentMessageDetails).' }),
    status: t.expose('status', { type: MessageStatusEnum, description: 'queued when accepted; provider status updates move it on.' }),
    to: t.exposeString('to', { description: 'Recipient phone number.' }),
    kind: t.expose('kind', { type: SendKindEnum, description: 'flow, product_list or template.' }),
    messageType: t.expose('messageType', { type: SendMessageTypeEnum, description: 'interactive or template.' }),
    providerMessageId: t.exposeString('providerMessageId', { description: "The provider's id for the message." }),
    flowToken: t.exposeString('flowToken', { description: 'The flow_token of a Flow send (echoed in the reply), else null.', nullable: true }),
    templateName: t.exposeString('templateName', { description: 'The template of a template send, else null.', nullable: true }),
    productItemCount: t.exposeInt('productItemCount', { nullable: true, description: 'Product items sent, after dropping unmatched ones.' }),
    createdAt: t.expose('createdAt', { description: 'When it was accepted (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const SendMessageResult = builder.objectRef<{ message: SentMessage; replayed: boolean; appId: string }>('SendMessageResult').implement({
  description: 'The queued message; replayed is true when an Idempotency-Key replayed an earlier send.',
  fields: (t) => ({
    message: t.field({ description: 'The queued message.', type: SentMessageRef, resolve: (r) => ({ ...r.message, appId: r.appId }) }),
    replayed: t.exposeBoolean('replayed', { description: 'True when an Idempotency-Key replayed the stored first response.' }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Inputs

export const TextInput = builder.inputType('SendTextInput', {
  description: 'A text part (body or footer).',
  fields: (t) => zodInputFields(t, bodyText, { text: 'The text.' }, { nullAsAbsent: true }),
});
export const HeaderInput = builder.inputType('SendHeaderInput', {
  description: 'A message header: type text and its text (up to 60 characters).',
  fields: (t) => zodInputFields(t, textHeader, { type: 'text', text: 'At most 60 characters.' }, { nullAsAbsent: true }),
});
/** A fixed value of the body (type, interactive.type, action.name): optional here, graphqlInput fills it in. */
export const fixed = (value: string): InputFieldHint => ({ description: `Fixed value ${value}; may be omitted here.`, required: false });
export const envelopeHints = {
  to: 'Recipient phone number.',
  tags: 'Free-form tags stored with the message.',
  metadata: { description: 'An object or a string.', type: 'JSON' },
} satisfies InputFieldHints<typeof envelope>;

// ---------------------------------------------------------------------------------------------
// The GraphQL inputs omit the fixed values and use null for "absent": both are normalised before
// the same zod schema the REST body goes through.

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, withoutNulls(v)]])));
  }
  return value;
}

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

export const graphqlInput = <T>(schema: z.ZodType<T>, fill: (input: Obj) => void) =>
  z.preprocess((raw) => {
    const input = withoutNulls(raw);
    if (obj(input)) fill(input as Obj);
    return input;
  }, withStorableText(schema));

const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, { message: 'must be 1 to 255 visible ASCII characters' });

const sendDescription = (what: string) =>
  `${what} 202-style receipt: status queued. An idempotencyKey (the Idempotency-Key header on REST) replays the first response for the same body and is conflict (409) for another. Scope: messages:send.`;

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** A send mutation of one kind: its input type, normalised by graphqlInput, then the shared send. */
export function sendMutation(name: string, input: InputObjectRef<BuilderTypes, unknown>, schema: z.ZodType, what: string) {
  builder.mutationField(name, (t) =>
    t.field({
      type: SendMessageResult,
      description: sendDescription(what),
      authScopes: (_root, args) => ({ $all: { scope: 'messages:send', app: args.appId } }),
      args: {
        appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
        input: t.arg({ description: 'The fields, validated as the REST body is.', type: input, required: true, validate: { schema: schema as never } }),
        idempotencyKey: t.arg.string({ description: 'Replays the first response for the same body; 409 conflict for a different one. The Idempotency-Key header on the request does the same for any mutation.', validate: { schema: idempotencyKey } }),
      },
      resolve: (_root, args, ctx) =>
        detailsUnder('input', async () => ({ ...(await sendMessage(ctx, args.appId, args.input as unknown as SendMessage, args.idempotencyKey ?? undefined)), appId: args.appId })),
    }),
  );
}

builder.mutationField('sendMessage', (t) =>
  t.field({
    type: SendMessageResult,
    description: sendDescription(
      'Sends any kind, chosen by the body (POST /messaging/{appId}/messages): a Flow or Product List payload by interactive.type, or a template send ({"type": "template"}).',
    ),
    authScopes: (_root, args) => ({ $all: { scope: 'messages:send', app: args.appId } }),
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      message: t.arg({ description: 'A Flow, Product List or template payload (WhatsApp field names, snake_case).', type: 'JSON', required: true, validate: { schema: sendMessageSchema } }),
      idempotencyKey: t.arg.string({ description: 'Replays the first response for the same body; 409 conflict for a different one. The Idempotency-Key header on the request does the same for any mutation.', validate: { schema: idempotencyKey } }),
    },
    resolve: (_root, args, ctx) =>
      detailsUnder('message', async () => ({ ...(await sendMessage(ctx, args.appId, args.message as SendMessage, args.idempotencyKey ?? undefined)), appId: args.appId })),
  }),
);

