import { ANSWER_MAX_LENGTH, ANSWERS_MAX, actorTypes, callStatuses, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, QUESTION_MAX_LENGTH, timelineEventTypes } from '../scheduling/fields.js';
import { reminderOffsets } from '../scheduling/timeline.js';
import { eventTypes, type EventType } from '../events/types.js';
import { messageStatuses } from '../analytics/filters.js';
import { sendKinds } from '../sends/service.js';
import { callStatuses as videoCallStatuses, participantRoles, recordingStatuses } from '../video/lifecycle.js';
import { subscriptionStatuses } from '../webhooks/service.js';
import { deliveryTypes, PING_TYPE, webhookTypeOf } from '../webhooks/patterns.js';
import type { JsonSchema } from './graphql-schema.js';

// The `webhooks` section: one entry per type a delivery can carry (src/webhooks/patterns.ts), signed
// as Standard Webhooks. Each body is `{type, timestamp, data}`; src/webhooks/outbox.ts builds the
// scheduled.* and webhook bodies, the event log those of the catalogue types.

const uuid = { type: 'string', format: 'uuid' };
const instant = { type: 'string', format: 'date-time' };
const text = { type: 'string' };

/** callRecord() of src/webhooks/outbox.ts: the call as it is after the write. */
const call: JsonSchema = {
  type: 'object',
  description: 'The call after the change; `cancelled_at` and `cancellation_reason` only once cancelled.',
  properties: {
    id: uuid,
    app_id: uuid,
    assigned_agent_id: uuid,
    booking_source: text,
    guest_name: text,
    guest_phone: { type: ['string', 'null'] },
    guest_email: { type: ['string', 'null'] },
    guest_timezone: { ...text, description: 'IANA time zone.' },
    guest_intake_notes: { type: ['string', 'null'] },
    metadata: {
      type: ['object', 'null'],
      description: 'Flat key-value pairs the caller set; null when none.',
      maxProperties: METADATA_MAX_KEYS,
      propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX_LENGTH },
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
    answers: {
      type: ['array', 'null'],
      description: 'Answers to booking questions, in order; null when none.',
      maxItems: ANSWERS_MAX,
      items: {
        type: 'object',
        properties: { question: { type: 'string', minLength: 1, maxLength: QUESTION_MAX_LENGTH }, answer: { type: 'string', maxLength: ANSWER_MAX_LENGTH } },
        required: ['question', 'answer'],
        additionalProperties: false,
      },
    },
    scheduled_at: instant,
    duration_minutes: { type: 'integer' },
    app_timezone: { ...text, description: 'IANA time zone.' },
    status: { type: 'string', enum: [...callStatuses] },
    created_at: instant,
    cancelled_at: instant,
    cancellation_reason: { ...text, description: 'Empty when none was given.' },
  },
  required: [
    'id', 'app_id', 'assigned_agent_id', 'booking_source', 'guest_name', 'guest_phone', 'guest_email', 'guest_timezone',
    'guest_intake_notes', 'metadata', 'answers', 'scheduled_at', 'duration_minutes', 'app_timezone', 'status', 'created_at'],
  dependentRequired: { cancelled_at: ['cancellation_reason'], cancellation_reason: ['cancelled_at'] },
  additionalProperties: false,
};

/** callResource(): the call in the event log, every field present, none as null. */
const { dependentRequired: _pairs, ...callFields } = call;
const callResource: JsonSchema = {
  ...callFields,
  description: 'The call after the change; `cancelled_at` and `cancellation_reason` null until cancelled, the reason null when none was given.',
  properties: {
    ...(call.properties as Record<string, JsonSchema>),
    cancelled_at: { type: ['string', 'null'], format: 'date-time' },
    cancellation_reason: { type: ['string', 'null'], minLength: 1 },
  },
  required: [...(call.required as string[]), 'cancelled_at', 'cancellation_reason'],
};

/** eventRecord(): the timeline event, as GET scheduled-calls/{id} lists it. */
const event: JsonSchema = {
  type: 'object',
  properties: {
    id: uuid,
    event_type: { type: 'string', enum: [...timelineEventTypes] },
    actor_type: { type: 'string', enum: [...actorTypes] },
    actor_id: text,
    payload: { type: 'object' },
    created_at: instant,
  },
  required: ['id', 'event_type', 'actor_type', 'actor_id', 'payload', 'created_at'],
  additionalProperties: false,
};

const reminder: JsonSchema = {
  type: 'object',
  properties: { id: uuid, kind: { type: 'string', enum: reminderOffsets.map((r) => r.kind) }, due_at: instant },
  required: ['id', 'kind', 'due_at'],
  additionalProperties: false,
};

const message = (type: string, data: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    type: { type: 'string', const: type },
    timestamp: { ...instant, description: 'When the event happened (a reminder: when it was sent out).' },
    data,
  },
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
});

const dataWith = (extra: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: { call: { $ref: '#/components/schemas/WebhookScheduledCall' }, ...extra },
  required: ['call', ...Object.keys(extra)],
  additionalProperties: false,
});

const signatureHeaders = {
  'webhook-id': { required: true, description: 'The delivery id: the same on every retry of one delivery (deduplicate on it).', schema: { type: 'string' } },
  'webhook-timestamp': { required: true, description: 'Unix seconds when this attempt was signed.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the subscription secret (whsec_): one per secret, two during a rotation\'s overlap (the new secret first). Accept the body when any of them verifies.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

const receiverResponses = {
  '2XX': { description: 'Received: the delivery succeeds.' },
  '410': { description: 'Gone: the subscription is disabled; no further deliveries.' },
  default: {
    description:
      'Any other answer (or none within the timeout) is retried with back-off; a `Retry-After` header postpones the next attempt. After WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row fail every attempt (default 5), the subscription is disabled.',
  },
};

/** subscriptionRecord() of src/webhooks/outbox.ts: never the secret. */
const endpoint: JsonSchema = {
  type: 'object',
  description: 'The webhook subscription (endpoint) as it is after the change.',
  properties: {
    id: uuid,
    app_id: uuid,
    url: text,
    events: { type: 'array', items: text, description: 'The event types and patterns it lists.' },
    description: { type: ['string', 'null'] },
    status: { type: 'string', enum: [...subscriptionStatuses] },
    disabled_reason: { type: ['string', 'null'] },
    created_at: instant,
    updated_at: instant,
  },
  required: ['id', 'app_id', 'url', 'events', 'description', 'status', 'disabled_reason', 'created_at', 'updated_at'],
  additionalProperties: false,
};

const endpointRef = { $ref: '#/components/schemas/WebhookEndpoint' };

const nullableText = { type: ['string', 'null'] };
const nullableInstant = { type: ['string', 'null'], format: 'date-time' };

/** messageRecord() of src/sends/service.ts: none is null here (the v1 REST answers keep `""`). */
const messageResource: JsonSchema = {
  type: 'object',
  description: 'The message after the change.',
  properties: {
    id: text,
    source: text,
    destination: text,
    provider_from: { ...nullableText, minLength: 1, description: 'Sender number at the provider; null when unknown.' },
    provider_to: { ...nullableText, minLength: 1, description: 'Recipient number at the provider; null when unknown.' },
    channel: text,
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
    message_type: text,
    user_phone: text,
    conversation_key: text,
    provider_message_id: text,
    status: { type: 'string', enum: [...messageStatuses] },
    sent_at: nullableInstant,
    delivered_at: nullableInstant,
    read_at: nullableInstant,
    failed_at: nullableInstant,
    error_message: nullableText,
    created_at: instant,
  },
  additionalProperties: false,
};
messageResource.required = Object.keys(messageResource.properties as object);

/** The refused send of message.send_failed: nothing was stored, so no message id. */
const sendFailure: JsonSchema = {
  type: 'object',
  description: 'The send the provider refused; nothing was stored.',
  properties: { to: text, kind: { type: 'string', enum: [...sendKinds] }, error_message: text },
  required: ['to', 'kind', 'error_message'],
  additionalProperties: false,
};

/** flow.completed: the send that opened the Flow and the inbound reply that answered it. */
const flowCompletion: JsonSchema = {
  type: 'object',
  properties: {
    message_id: { ...text, description: 'The send that opened the Flow.' },
    flow_token: text,
    reply_message_id: { ...text, description: 'The inbound message that answered it.' },
    response: { type: 'object', description: "The Flow's answers, as the provider sent them." },
    replied_at: instant,
  },
  required: ['message_id', 'flow_token', 'reply_message_id', 'response', 'replied_at'],
  additionalProperties: false,
};

/** videoCallRecord() of src/video/service.ts: without participants and recordings, which have their own events. */
const videoCall: JsonSchema = {
  type: 'object',
  description: 'The video call after the change.',
  properties: {
    id: uuid,
    app_id: uuid,
    status: { type: 'string', enum: [...videoCallStatuses] },
    preset_id: text,
    title: nullableText,
    description: nullableText,
    metadata: { type: ['object', 'null'] },
    host_name: nullableText,
    guest_name: nullableText,
    provider: {
      type: ['object', 'null'],
      properties: { name: text, meeting_id: nullableText },
      required: ['name', 'meeting_id'],
      additionalProperties: false,
    },
    contactcenter: {
      type: 'object',
      properties: { conversation_id: text, cc_host_origin: text, cc_target_env: text, cc_lang_tag: text, cc_use_popup_auth: { type: 'boolean' } },
      required: ['conversation_id', 'cc_host_origin', 'cc_target_env', 'cc_lang_tag', 'cc_use_popup_auth'],
      additionalProperties: false,
    },
    created_at: instant,
    updated_at: instant,
  },
  additionalProperties: false,
};
videoCall.required = Object.keys(videoCall.properties as object);

/** participantRecord(): one session of a participant (a rejoin is a new one). */
const participant: JsonSchema = {
  type: 'object',
  properties: {
    id: uuid,
    video_call_id: uuid,
    provider_participant_id: text,
    role: { type: 'string', enum: [...participantRoles] },
    name: text,
    joined_at: instant,
    left_at: nullableInstant,
  },
  required: ['id', 'video_call_id', 'provider_participant_id', 'role', 'name', 'joined_at', 'left_at'],
  additionalProperties: false,
};

/** recordingRecord(). */
const recording: JsonSchema = {
  type: 'object',
  properties: {
    id: uuid,
    video_call_id: uuid,
    provider_archive_id: text,
    status: { type: 'string', enum: [...recordingStatuses] },
    url: nullableText,
    created_at: instant,
    updated_at: instant,
  },
  required: ['id', 'video_call_id', 'provider_archive_id', 'status', 'url', 'created_at', 'updated_at'],
  additionalProperties: false,
};

/** The resource each catalogue type of the event log records (src/events/log.ts callers). */
const resourceOf: Record<EventType, string> = {
  'message.received': 'WebhookMessage',
  'message.status_updated': 'WebhookMessage',
  'message.send_failed': 'WebhookSendFailure',
  'flow.completed': 'WebhookFlowCompletion',
  'scheduled_call.created': 'WebhookScheduledCallResource',
  'scheduled_call.rescheduled': 'WebhookScheduledCallResource',
  'scheduled_call.assigned': 'WebhookScheduledCallResource',
  'scheduled_call.updated': 'WebhookScheduledCallResource',
  'scheduled_call.cancelled': 'WebhookScheduledCallResource',
  'scheduled_call.reminder': 'WebhookScheduledCallResource',
  'scheduled_call.completed': 'WebhookScheduledCallResource',
  'scheduled_call.no_show': 'WebhookScheduledCallResource',
  'video_call.created': 'WebhookVideoCall',
  'video_call.participant_joined': 'WebhookVideoParticipant',
  'video_call.participant_left': 'WebhookVideoParticipant',
  'video_call.ended': 'WebhookVideoCall',
  'recording.updated': 'WebhookVideoRecording',
  'webhook_endpoint.disabled': 'WebhookEndpointDisabling',
};

/** appEventRecord() of src/events/log.ts: the event as the events path lists it, its resource typed. */
const eventRecordData = (type: keyof typeof resourceOf): JsonSchema => ({
  type: 'object',
  description: "The event as the app's event log holds it (GET /events/{appId} lists the same record).",
  properties: {
    id: { ...uuid, description: 'The event id (UUIDv7): deduplicate on it, resume the events path after it.' },
    type: { type: 'string', const: type },
    occurred_at: instant,
    actor_type: { type: 'string', enum: ['client', 'system'] },
    actor_id: { ...text, description: 'The client id for a change made through the API; `system` otherwise.' },
    resource: { $ref: `#/components/schemas/${resourceOf[type]}`, description: 'What the event is about, as it is after the change.' },
  },
  required: ['id', 'type', 'occurred_at', 'actor_type', 'actor_id', 'resource'],
  additionalProperties: false,
});

/** Schemas the webhooks section refers to, for components.schemas. */
export const webhookSchemas: Record<string, JsonSchema> = {
  WebhookScheduledCall: call,
  WebhookScheduledCallResource: callResource,
  WebhookTimelineEvent: event,
  WebhookReminder: reminder,
  WebhookEndpoint: endpoint,
  WebhookMessage: messageResource,
  WebhookSendFailure: sendFailure,
  WebhookFlowCompletion: flowCompletion,
  WebhookVideoCall: videoCall,
  WebhookVideoParticipant: participant,
  WebhookVideoRecording: recording,
  WebhookEndpointDisabling: {
    type: 'object',
    description: 'The endpoint as it is after the service disabled it, and why.',
    properties: {
      endpoint: endpointRef,
      reason: { type: 'string', enum: ['gone', 'consecutive_failures'], description: 'gone: it answered 410; consecutive_failures: that many deliveries in a row failed after all their attempts.' },
      consecutive_failures: { type: 'integer', minimum: 1 },
    },
    required: ['endpoint', 'reason'],
    additionalProperties: false,
  },
};

/** Catalogue types: a summary each, and the data of those whose body the webhooks side builds. */
const catalogue: Record<EventType, { summary: string; data?: JsonSchema }> = {
  'message.received': { summary: 'An inbound message arrived' },
  'message.status_updated': { summary: 'A sent message was sent, delivered, read or failed' },
  'message.send_failed': { summary: 'A message could not be sent' },
  'flow.completed': { summary: 'A Flow was completed' },
  'scheduled_call.created': { summary: 'A scheduled call was booked (event log)' },
  'scheduled_call.rescheduled': { summary: 'A scheduled call moved to a new time (event log)' },
  'scheduled_call.assigned': { summary: 'A scheduled call was assigned to another agent (event log)' },
  'scheduled_call.updated': { summary: 'Guest details of a scheduled call changed (event log)' },
  'scheduled_call.cancelled': { summary: 'A scheduled call was cancelled (event log)' },
  'scheduled_call.reminder': { summary: 'A reminder of an upcoming scheduled call is due (event log)' },
  'scheduled_call.completed': { summary: 'A scheduled call was completed (event log)' },
  'scheduled_call.no_show': { summary: 'A scheduled call ended as a no-show (event log)' },
  'video_call.created': { summary: 'A video call was created' },
  'video_call.participant_joined': { summary: 'A participant joined a video call' },
  'video_call.participant_left': { summary: 'A participant left a video call' },
  'video_call.ended': { summary: 'A video call ended' },
  'recording.updated': { summary: 'A recording changed state (for example, became available)' },
  'webhook_endpoint.disabled': { summary: 'The service disabled a webhook endpoint of the app' },
};

const pingData: JsonSchema = {
  type: 'object',
  properties: { endpoint: endpointRef },
  required: ['endpoint'],
  additionalProperties: false,
};

const summaries: Record<string, string> = {
  created: 'A scheduled call was booked',
  rescheduled: 'A scheduled call moved to a new time',
  assigned: 'A scheduled call was assigned to another agent',
  updated: 'Guest details of a scheduled call changed',
  cancelled: 'A scheduled call was cancelled',
  completed: 'A scheduled call was completed',
  no_show: 'A scheduled call ended as a no-show',
};

/** The OpenAPI 3.1 `webhooks` map: one POST per type a delivery can carry. */
export function webhooksSection(): Record<string, unknown> {
  const entries: { type: string; summary: string; body: JsonSchema; sent: string }[] = [];
  const selected = (type: string, how: string) => `Sent to each active subscription of the app that lists ${how}.`;
  for (const [eventType, type] of Object.entries(webhookTypeOf)) {
    const summary = summaries[eventType];
    if (!summary) throw new Error(`OpenAPI: no summary for webhook ${type}`);
    entries.push({ type, summary, body: message(type, dataWith({ event: { $ref: '#/components/schemas/WebhookTimelineEvent' } })), sent: selected(type, `\`${type}\` itself (no wildcard selects it)`) });
  }
  entries.push({
    type: 'scheduled.reminder',
    summary: 'A reminder of an upcoming scheduled call is due (24 h and 15 min before)',
    body: message('scheduled.reminder', dataWith({ reminder: { $ref: '#/components/schemas/WebhookReminder' } })),
    sent: selected('scheduled.reminder', '`scheduled.reminder` itself (no wildcard selects it)'),
  });
  for (const type of eventTypes) {
    const { summary, data } = catalogue[type];
    const group = type.slice(0, type.indexOf('.'));
    entries.push({ type, summary, body: message(type, data ?? eventRecordData(type)), sent: selected(type, `\`${type}\`, \`${group}.*\` or \`*\``) });
  }
  entries.push({
    type: PING_TYPE,
    summary: 'A test delivery asked for with pingWebhookSubscription',
    body: message(PING_TYPE, pingData),
    sent: 'Sent only to the subscription it was asked for, whatever it lists.',
  });
  const missing = deliveryTypes.filter((t) => !entries.some((e) => e.type === t));
  if (missing.length > 0) throw new Error(`OpenAPI: webhook types without a payload: ${missing.join(', ')}`);
  return Object.fromEntries(
    entries.map(({ type, summary, body, sent }) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace(/\./g, '_')}`,
          summary,
          description: `${sent} Standard Webhooks: verify the signature before trusting the body.`,
          tags: ['webhooks'],
          security: [],
          parameters: Object.entries(signatureHeaders).map(([name, header]) => ({ name, in: 'header', ...header })),
          requestBody: { required: true, content: { 'application/json': { schema: body } } },
          responses: receiverResponses,
        },
      },
    ]),
  );
}
