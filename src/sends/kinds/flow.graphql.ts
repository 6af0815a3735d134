import { builder } from '../../graphql/builder.js';
import { SentMessageDetailsRef } from '../sent-messages.graphql.js';
import { envelopeFields, fixed, graphqlInput, HeaderInput, obj, sendMutation, TextInput } from '../sends.graphql.js';
import { flowMessageSchema } from './flow.js';

// The Flow send's input and mutation, and the Flow reply of a sent message.

const FlowReply = builder.objectRef<{ messageId: string; receivedAt: Date; response: unknown }>('FlowReply').implement({
  description: 'The inbound message that answered a Flow, linked by flow_token.',
  fields: (t) => ({
    messageId: t.exposeString('messageId', { description: 'The inbound message that carried the reply.' }),
    receivedAt: t.expose('receivedAt', { description: 'When the reply arrived (ISO 8601 UTC).', type: 'DateTime' }),
    response: t.field({ type: 'JSON', description: "The user's answers.", resolve: (r) => r.response }),
  }),
});

builder.objectField(SentMessageDetailsRef, 'flowReply', (t) =>
  t.field({
    description: 'The Flow reply, once the user submitted it.',
    type: FlowReply,
    nullable: true,
    resolve: (d) => (d.replyMessageId && d.repliedAt ? { messageId: d.replyMessageId, receivedAt: d.repliedAt, response: d.replyResponse } : null),
  }),
);

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

const flowInput = graphqlInput(flowMessageSchema, (input) => {
  input.type ??= 'interactive';
  const interactive = obj(input.interactive);
  if (interactive) {
    interactive.type ??= 'flow';
    const action = obj(interactive.action);
    if (action) action.name ??= 'flow';
  }
});

sendMutation(
  'sendFlowMessage',
  FlowMessageInput,
  flowInput,
  'Sends a Flow message. Only inside the 24-hour window (outside_service_window, 422, otherwise: send a template with a Flow button); flow_token reused in the app is conflict (409).',
);
