import { ANSWER_MAX_LENGTH, ANSWERS_MAX, actorTypes, callStatuses, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, QUESTION_MAX_LENGTH, timelineEventTypes } from '../scheduling/fields.js';
import { reminderOffsets } from '../scheduling/timeline.js';
import { webhookEventTypes, webhookTypeOf } from '../webhooks/outbox.js';
import type { JsonSchema } from './graphql-schema.js';

// The `webhooks` section: one entry per event type the service sends (src/webhooks/outbox.ts
// builds the bodies), signed as Standard Webhooks. Each body is `{type, timestamp, data}`.

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
    description: 'Space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the subscription secret (whsec_).',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

const receiverResponses = {
  '2XX': { description: 'Received: the delivery succeeds.' },
  '410': { description: 'Gone: the subscription is disabled; no further deliveries.' },
  default: { description: 'Any other answer (or none within the timeout) is retried with back-off; a `Retry-After` header postpones the next attempt.' },
};

/** Schemas the webhooks section refers to, for components.schemas. */
export const webhookSchemas: Record<string, JsonSchema> = {
  WebhookScheduledCall: call,
  WebhookTimelineEvent: event,
  WebhookReminder: reminder,
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

/** The OpenAPI 3.1 `webhooks` map: one POST per event type a subscription may list. */
export function webhooksSection(): Record<string, unknown> {
  const entries: [string, JsonSchema][] = [];
  for (const [eventType, type] of Object.entries(webhookTypeOf)) {
    entries.push([type, message(type, dataWith({ event: { $ref: '#/components/schemas/WebhookTimelineEvent' } }))]);
    if (!summaries[eventType]) throw new Error(`OpenAPI: no summary for webhook ${type}`);
  }
  entries.push(['scheduled.reminder', message('scheduled.reminder', dataWith({ reminder: { $ref: '#/components/schemas/WebhookReminder' } }))]);
  const types = entries.map(([type]) => type);
  const missing = webhookEventTypes.filter((t) => !types.includes(t));
  if (missing.length > 0) throw new Error(`OpenAPI: webhook types without a payload: ${missing.join(', ')}`);
  return Object.fromEntries(
    entries.map(([type, body]) => {
      const eventType = Object.entries(webhookTypeOf).find(([, t]) => t === type)?.[0];
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace(/\./g, '_')}`,
            summary: eventType ? summaries[eventType] : 'A reminder of an upcoming scheduled call is due (24 h and 15 min before)',
            description: `Sent to each active subscription of the app that lists \`${type}\`. Standard Webhooks: verify the signature before trusting the body.`,
            tags: ['webhooks'],
            security: [],
            parameters: Object.entries(signatureHeaders).map(([name, header]) => ({ name, in: 'header', ...header })),
            requestBody: { required: true, content: { 'application/json': { schema: body } } },
            responses: receiverResponses,
          },
        },
      ];
    }),
  );
}
