import { builder } from '../../graphql/builder.js';
import { SentMessageDetailsRef } from '../sent-messages.graphql.js';
import { zodInputFields } from '../../graphql/zod-input.js';
import { fixed, obj } from '../sends.graphql.js';
import { interactiveSendMutation } from './interactive.graphql.js';
import { closedEnum } from '../../graphql/enums.js';
import { flowAction, flowActionPayload, flowActions, flowInteractive, flowMessageSchema, flowModes, flowParameters } from './flow.js';

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

const FlowStartActionEnum = closedEnum('FlowStartAction', flowActions, "How a Flow opens: navigate shows flow_action_payload.screen; data_exchange asks the Flow's data endpoint for the first screen.");
const FlowModeEnum = closedEnum('FlowMode', flowModes, 'published reaches every number; draft only numbers registered as testers.');

const FlowActionPayloadInput = builder.inputType('FlowActionPayloadInput', {
  description: 'The first screen and its initial data (flow_action navigate).',
  fields: (t) => zodInputFields(t, flowActionPayload, { screen: 'Required with navigate: the first screen.', data: 'Initial state of that screen.' }, { nullAsAbsent: true }),
});
const FlowParametersInput = builder.inputType('FlowParametersInput', {
  description: 'Flow parameters: version, token, id or name, CTA, action, mode.',
  fields: (t) =>
    zodInputFields(t, flowParameters, {
      flow_message_version: '3',
      flow_token: 'Unique per send within the app.',
      flow_id: 'Required if flow_name is absent.',
      flow_name: 'Required if flow_id is absent.',
      flow_cta: 'Button label, at most 20 characters, no emoji or markdown.',
      flow_action: { description: 'navigate (default) or data_exchange.', type: FlowStartActionEnum },
      flow_action_payload: { description: 'Required with navigate; omitted with data_exchange.', type: FlowActionPayloadInput },
      mode: { description: 'published (default) or draft.', type: FlowModeEnum },
    }, { nullAsAbsent: true }),
});
const FlowActionInput = builder.inputType('FlowActionInput', {
  description: 'The Flow action: name `flow` and its parameters.',
  fields: (t) =>
    zodInputFields(t, flowAction, {
      name: fixed('flow'),
      parameters: { description: 'Flow parameters (flow_message_version, flow_token, flow_id or flow_name, flow_cta, ...).', type: FlowParametersInput },
    }, { nullAsAbsent: true }),
});
interactiveSendMutation({
  mutation: 'sendFlowMessage',
  prefix: 'Flow',
  kind: 'flow',
  interactiveSchema: flowInteractive,
  messageSchema: flowMessageSchema,
  interactiveDescription: 'The interactive part of a Flow message.',
  messageDescription: 'A Flow message: an interactive message that opens a WhatsApp Flow.',
  headerDescription: 'Optional header: type text, text up to 60 characters.',
  action: { description: 'name flow and its parameters.', type: FlowActionInput },
  interactiveFieldDescription: 'The Flow: type flow, header, body, footer, action.',
  fillAction: (interactive) => {
    const action = obj(interactive.action);
    if (action) action.name ??= 'flow';
  },
  what: 'Sends a Flow message. Only inside the 24-hour window (outside_service_window, 422, otherwise: send a template with a Flow button); flow_token reused in the app is conflict (409).',
});
