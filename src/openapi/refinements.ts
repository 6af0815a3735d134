import type { GraphQLSchema } from 'graphql';
import { messageStatuses } from '../analytics/filters.js';
import { METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS } from '../scheduling/fields.js';
import type { JsonSchema } from './graphql-schema.js';

// What the GraphQL types of response fields cannot say and the service guarantees: ids that are
// UUIDs (the schema types them ID), strings from a closed set, instants and days typed String,
// and the shape of JSON fields. Keyed by "Type.field"; merged into the field's non-null schema.

const uuid: JsonSchema = { format: 'uuid' };
const dateTime: JsonSchema = { format: 'date-time' };
const day: JsonSchema = { format: 'date' };
const oneOf = (values: readonly string[]): JsonSchema => ({ enum: [...values] });

const bodyVariable: JsonSchema = {
  type: 'object',
  properties: {
    index: { type: 'integer', minimum: 1 },
    type: { type: 'string' },
    example: { type: 'string' },
    name: { type: 'string', description: 'Named-variable templates only.' },
  },
  required: ['index', 'type', 'example'],
  additionalProperties: false,
};
const button: JsonSchema = {
  type: 'object',
  properties: { type: { type: 'string' }, text: { type: 'string' }, url: { type: 'string' } },
  required: ['type', 'text'],
  additionalProperties: false,
};

export const fieldRefinements: Record<string, JsonSchema> = {
  'Campaign.campaignId': uuid,
  'Template.templateId': uuid,
  'Template.appId': uuid,
  // Stored only through the template import, which checks these shapes.
  'Template.bodyVariables': { type: 'array', items: bodyVariable },
  'Template.buttons': { type: 'array', items: button },
  'DailyMetric.date': day,
  'AvailabilitySlot.startUtc': dateTime,
  'AvailabilitySlot.endUtc': dateTime,
  'AvailabilitySlot.agentId': uuid,
  'ScheduledCall.callId': uuid,
  'ScheduledCall.appId': uuid,
  'ScheduledCall.assignedAgentId': uuid,
  'ScheduledCall.metadata': {
    type: 'object',
    maxProperties: METADATA_MAX_KEYS,
    propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX_LENGTH },
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  },
  'ScheduledCallEvent.eventId': uuid,
  'ScheduledCallEvent.payload': { type: 'object' },
  'SentMessage.status': oneOf(messageStatuses),
  'SentMessage.kind': oneOf(['flow', 'product_list', 'template']),
  'SentMessage.messageType': oneOf(['interactive', 'template']),
  'InboundEventResult.event': oneOf(['message', 'status']),
  'VideoCall.callId': uuid,
  'VideoCall.metadata': { type: 'object' },
  'VideoParticipant.id': uuid,
  'VideoRecording.id': uuid,
};

/** The refinement of one field, if any. */
export const refinementOf = (typeName: string, fieldName: string): JsonSchema | undefined => fieldRefinements[`${typeName}.${fieldName}`];

/** Fails when a refinement names a field the schema does not have (a renamed type or field). */
export function checkRefinements(schema: GraphQLSchema): void {
  for (const key of Object.keys(fieldRefinements)) {
    const [typeName, fieldName] = key.split('.') as [string, string];
    const type = schema.getType(typeName);
    const fields = type && 'getFields' in type ? type.getFields() : undefined;
    if (!fields?.[fieldName]) throw new Error(`OpenAPI: refinement for ${key}, which the schema does not have`);
  }
}
