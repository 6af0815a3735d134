import { z } from 'zod';
import { MessageRef } from '../analytics/messages.graphql.js';
import { detailsUnder } from '../errors/app-error.js';
import { builder } from '../graphql/builder.js';
import { inboundEventSchema } from './inbound-events.js';
import { flowMessageSchema, productListMessageSchema, sendMessageSchema, templateMessageSchema, withStorableText, type SendMessage } from './payloads.js';
import { getSentMessage, ingestInboundEvent, sendMessage, type InboundResult, type SentMessage, type SentMessageDetails } from './service.js';

// Sends and inbound events. The payload inputs keep WhatsApp's snake_case field names, so one zod
// schema validates the REST body and the GraphQL input alike and error paths read the same
// (interactive.action.parameters.flow_cta). Scopes: messages:send, messages:ingest, messages:read.

const SentMessageRef = builder.objectRef<SentMessage>('SentMessage').implement({
  description: 'A message accepted for delivery (202 data.message on REST). Replays return the first response unchanged.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The message id in the analytics message list.' }),
    status: t.exposeString('status', { description: 'queued when accepted; provider status updates move it on.' }),
    to: t.exposeString('to', { description: 'Recipient phone number.' }),
    kind: t.exposeString('kind', { description: 'flow, product_list or template.' }),
    messageType: t.exposeString('messageType', { description: 'interactive or template.' }),
    providerMessageId: t.exposeString('providerMessageId', { description: "The provider's id for the message." }),
    flowToken: t.exposeString('flowToken', { description: 'The flow_token of a Flow send (echoed in the reply), else null.', nullable: true }),
    templateName: t.exposeString('templateName', { description: 'The template of a template send, else null.', nullable: true }),
    productItemCount: t.exposeInt('productItemCount', { nullable: true, description: 'Product items sent, after dropping unmatched ones.' }),
    createdAt: t.expose('createdAt', { description: 'When it was accepted (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const SendMessageResult = builder.objectRef<{ message: SentMessage; replayed: boolean }>('SendMessageResult').implement({
  description: 'The queued message; replayed is true when an Idempotency-Key replayed an earlier send.',
  fields: (t) => ({
    message: t.field({ description: 'The queued message.', type: SentMessageRef, resolve: (r) => r.message }),
    replayed: t.exposeBoolean('replayed', { description: 'True when an Idempotency-Key replayed the stored first response.' }),
  }),
});

const FlowReply = builder.objectRef<{ messageId: string; receivedAt: Date; response: unknown }>('FlowReply').implement({
  description: 'The inbound message that answered a Flow, linked by flow_token.',
  fields: (t) => ({
    messageId: t.exposeString('messageId', { description: 'The inbound message that carried the reply.' }),
    receivedAt: t.expose('receivedAt', { description: 'When the reply arrived (ISO 8601 UTC).', type: 'DateTime' }),
    response: t.field({ type: 'JSON', description: "The user's answers.", resolve: (r) => r.response }),
  }),
});

const SentMessageDetailsRef = builder.objectRef<SentMessageDetails>('SentMessageDetails').implement({
  description: 'A message sent through this service: the payload as sent and the Flow reply, if any.',
  fields: (t) => ({
    messageId: t.exposeString('messageId', { description: 'The message id.' }),
    kind: t.exposeString('kind', { description: 'flow, product_list or template.' }),
    flowToken: t.exposeString('flowToken', { description: 'The flow_token of a Flow send (echoed in the reply), else null.', nullable: true }),
    providerMessageId: t.exposeString('providerMessageId', { description: "The provider's id for the message.", nullable: true }),
    payload: t.field({ type: 'JSON', description: 'The body as sent (unmatched product items dropped).', resolve: (d) => d.payload }),
    message: t.field({ description: 'The payload as sent.', type: MessageRef, resolve: (d) => d.message }),
    flowReply: t.field({ description: 'The Flow reply, once the user submitted it.',
      type: FlowReply,
      nullable: true,
      resolve: (d) => (d.replyMessageId && d.repliedAt ? { messageId: d.replyMessageId, receivedAt: d.repliedAt, response: d.replyResponse } : null),
    }),
  }),
});

const InboundEventResult = builder.objectRef<InboundResult>('InboundEventResult').implement({ description: 'What an inbound event did: the event kind, whether it changed anything, and the message it stored or updated.',
  fields: (t) => ({
    event: t.exposeString('event', { description: 'message or status.' }),
    applied: t.exposeBoolean('applied', {
      description: 'False for a redelivered message, or a status update that did not move the message (never backwards).',
    }),
    message: t.field({ description: 'The stored or updated message, when there is one.', type: MessageRef, resolve: (r) => r.message }),
    linkedMessageId: t.exposeString('linkedMessageId', { nullable: true, description: 'For a Flow reply: the send it answers.' }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Inputs

const TextInput = builder.inputType('SendTextInput', { description: 'A text part (body or footer).', fields: (t) => ({ text: t.string({ description: 'The text.', required: true }) }) });
const HeaderInput = builder.inputType('SendHeaderInput', { description: 'A message header: type text and its text (up to 60 characters).',
  fields: (t) => ({ type: t.string({ required: true, description: 'text' }), text: t.string({ required: true, description: 'At most 60 characters.' }) }),
});
const fixed = (value: string) => `Fixed value ${value}; may be omitted here.`;
const envelopeFields = (t: PothosInputFields) => ({
  to: t.string({ required: true, description: 'Recipient phone number.' }),
  tags: t.stringList({ description: 'Free-form tags stored with the message.' }),
  metadata: t.field({ type: 'JSON', description: 'An object or a string.' }),
});
type PothosInputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

const FlowActionPayloadInput = builder.inputType('FlowActionPayloadInput', { description: 'The first screen and its initial data (flow_action navigate).',
  fields: (t) => ({
    screen: t.string({ description: 'Required with navigate: the first screen.' }),
    data: t.field({ type: 'JSON', description: 'Initial state of that screen.' }),
  }),
});
const FlowParametersInput = builder.inputType('FlowParametersInput', { description: 'Flow parameters: version, token, id or name, CTA, action, mode.',
  fields: (t) => ({
    flow_message_version: t.string({ required: true, description: '3' }),
    flow_token: t.string({ required: true, description: 'Unique per send within the app.' }),
    flow_id: t.string({ description: 'Required if flow_name is absent.' }),
    flow_name: t.string({ description: 'Required if flow_id is absent.' }),
    flow_cta: t.string({ required: true, description: 'Button label, at most 20 characters, no emoji or markdown.' }),
    flow_action: t.string({ description: 'navigate (default) or data_exchange.' }),
    flow_action_payload: t.field({ type: FlowActionPayloadInput, description: 'Required with navigate; omitted with data_exchange.' }),
    mode: t.string({ description: 'published (default) or draft.' }),
  }),
});
const FlowActionInput = builder.inputType('FlowActionInput', { description: 'The Flow action: name `flow` and its parameters.',
  fields: (t) => ({ name: t.string({ description: fixed('flow') }), parameters: t.field({ description: 'Flow parameters (flow_message_version, flow_token, flow_id or flow_name, flow_cta, ...).', type: FlowParametersInput, required: true }) }),
});
const FlowInteractiveInput = builder.inputType('FlowInteractiveInput', { description: 'The interactive part of a Flow message.',
  fields: (t) => ({
    type: t.string({ description: fixed('flow') }),
    header: t.field({ description: 'Optional header: type text, text up to 60 characters.', type: HeaderInput }),
    body: t.field({ description: 'Body: text up to 1024 characters.', type: TextInput, required: true }),
    footer: t.field({ description: 'Optional footer: text up to 60 characters.', type: TextInput }),
    action: t.field({ description: 'name flow and its parameters.', type: FlowActionInput, required: true }),
  }),
});
const FlowMessageInput = builder.inputType('FlowMessageInput', {
  description: 'A Flow message: an interactive message that opens a WhatsApp Flow.',
  fields: (t) => ({ ...envelopeFields(t), type: t.string({ description: fixed('interactive') }), interactive: t.field({ description: 'The Flow: type flow, header, body, footer, action.', type: FlowInteractiveInput, required: true }) }),
});

const ProductItemInput = builder.inputType('ProductItemInput', { description: 'One product of a section, by retailer id.', fields: (t) => ({ product_retailer_id: t.string({ description: 'Retailer id of a catalog product.', required: true }) }) });
const ProductSectionInput = builder.inputType('ProductSectionInput', { description: 'A titled section of products.',
  fields: (t) => ({ title: t.string({ description: 'Section title.', required: true }), product_items: t.field({ description: 'Products of the section (at most 30 across all sections).', type: [ProductItemInput], required: true }) }),
});
const ProductListActionInput = builder.inputType('ProductListActionInput', { description: 'The catalog and its sections (at most 30 products in total).',
  fields: (t) => ({
    catalog_id: t.string({ required: true, description: 'A catalog of the app (import type catalog).' }),
    sections: t.field({ type: [ProductSectionInput], required: true, description: 'At least 1; at most 30 product items in total.' }),
  }),
});
const ProductListInteractiveInput = builder.inputType('ProductListInteractiveInput', { description: 'The interactive part of a Product List message.',
  fields: (t) => ({
    type: t.string({ description: fixed('product_list') }),
    header: t.field({ description: 'Required header: type text, text up to 60 characters.', type: HeaderInput, required: true }),
    body: t.field({ description: 'Body: text up to 1024 characters.', type: TextInput, required: true }),
    footer: t.field({ description: 'Optional footer: text up to 60 characters.', type: TextInput }),
    action: t.field({ description: 'catalog_id and the sections.', type: ProductListActionInput, required: true }),
  }),
});
const ProductListMessageInput = builder.inputType('ProductListMessageInput', {
  description: 'A Product List message: items of one catalog, in sections.',
  fields: (t) => ({
    ...envelopeFields(t),
    type: t.string({ description: fixed('interactive') }),
    interactive: t.field({ description: 'The product list: type product_list, header, body, footer, action.', type: ProductListInteractiveInput, required: true }),
  }),
});

const TemplateInput = builder.inputType('TemplateInput', { description: 'An approved template of the app, its language and parameters.',
  fields: (t) => ({
    name: t.string({ description: 'Name of an approved template of the app.', required: true }),
    language: t.string({ required: true, description: 'Locale code, e.g. en_US.' }),
    parameters: t.stringList({ description: "Values of the body's placeholders, in order; as many as it has." }),
    flow_token: t.string({ description: "Required when the template has a Flow button; unique per send within the app." }),
    flow_action_data: t.field({ type: 'JSON', description: 'Initial data of the Flow behind the button.' }),
  }),
});
const TemplateMessageInput = builder.inputType('TemplateMessageInput', {
  description: 'A send of an approved template; works outside the 24-hour window.',
  fields: (t) => ({ ...envelopeFields(t), type: t.string({ description: fixed('template') }), template: t.field({ description: 'The template: name, language, parameters and an optional flow_token.', type: TemplateInput, required: true }) }),
});

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

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

const graphqlInput = <T>(schema: z.ZodType<T>, fill: (input: Obj) => void) =>
  z.preprocess((raw) => {
    const input = withoutNulls(raw);
    if (obj(input)) fill(input as Obj);
    return input;
  }, withStorableText(schema));

const flowInput = graphqlInput(flowMessageSchema, (input) => {
  input.type ??= 'interactive';
  const interactive = obj(input.interactive);
  if (interactive) {
    interactive.type ??= 'flow';
    const action = obj(interactive.action);
    if (action) action.name ??= 'flow';
  }
});
const productListInput = graphqlInput(productListMessageSchema, (input) => {
  input.type ??= 'interactive';
  const interactive = obj(input.interactive);
  if (interactive) interactive.type ??= 'product_list';
});
const templateInput = graphqlInput(templateMessageSchema, (input) => {
  input.type ??= 'template';
});

const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, { message: 'must be 1 to 255 visible ASCII characters' });

const sendDescription = (what: string) =>
  `${what} 202-style receipt: status queued. An idempotencyKey (the Idempotency-Key header on REST) replays the first response for the same body and is conflict (409) for another. Scope: messages:send.`;

function sendMutation(name: string, input: typeof FlowMessageInput | typeof ProductListMessageInput | typeof TemplateMessageInput, schema: z.ZodType, what: string) {
  builder.mutationField(name, (t) =>
    t.field({
      type: SendMessageResult,
      description: sendDescription(what),
      authScopes: (_root, args) => ({ $all: { scope: 'messages:send', app: args.appId } }),
      args: {
        appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
        input: t.arg({ description: 'The fields, validated as the REST body is.', type: input, required: true, validate: { schema: schema as never } }),
        idempotencyKey: t.arg.string({ description: 'Replays the first response for the same body; 409 for a different one.', validate: { schema: idempotencyKey } }),
      },
      resolve: (_root, args, ctx) =>
        detailsUnder('input', () => sendMessage(ctx, args.appId, args.input as unknown as SendMessage, args.idempotencyKey ?? undefined)),
    }),
  );
}

sendMutation(
  'sendFlowMessage',
  FlowMessageInput,
  flowInput,
  'Sends a Flow message. Only inside the 24-hour window (outside_service_window, 422, otherwise: send a template with a Flow button); flow_token reused in the app is conflict (409).',
);
sendMutation(
  'sendProductListMessage',
  ProductListMessageInput,
  productListInput,
  'Sends a Product List message. Only inside the 24-hour window; catalog_id must be a catalog of the app; unmatched items are dropped, none matched is no_matching_products (422) with nothing stored.',
);
sendMutation(
  'sendTemplateMessage',
  TemplateMessageInput,
  templateInput,
  'Sends an approved template, inside or outside the window; parameters must match its body placeholders; a Flow button needs a flow_token.',
);

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
      idempotencyKey: t.arg.string({ description: 'Replays the first response for the same body; 409 for a different one.', validate: { schema: idempotencyKey } }),
    },
    resolve: (_root, args, ctx) => detailsUnder('message', () => sendMessage(ctx, args.appId, args.message as SendMessage, args.idempotencyKey ?? undefined)),
  }),
);

builder.mutationField('ingestInboundEvent', (t) =>
  t.field({
    type: InboundEventResult,
    description:
      "The provider's events (POST /messaging/{appId}/inbound): an inbound message (opens the 24-hour window; a Flow reply is linked to its send by flow_token and stored as flow_handled) or a status update (sent, delivered, read, failed; never moves a message backwards). Scope: messages:ingest.",
    authScopes: (_root, args) => ({ $all: { scope: 'messages:ingest', app: args.appId } }),
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      event: t.arg({ description: 'An inbound message or a status update from the provider.', type: 'JSON', required: true, validate: { schema: inboundEventSchema } }),
    },
    resolve: (_root, args, ctx) => ingestInboundEvent(ctx, args.appId, args.event as z.output<typeof inboundEventSchema>),
  }),
);

builder.queryField('sentMessage', (t) =>
  t.field({
    type: SentMessageDetailsRef,
    description: 'A message sent through this service, with its payload and Flow reply; not_found otherwise. Scope: messages:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'messages:read', app: args.appId } }),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), messageId: t.arg.string({ description: 'The message id.', required: true }) },
    resolve: (_root, args, ctx) => getSentMessage(ctx, args.appId, args.messageId),
  }),
);
