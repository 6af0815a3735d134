import { readFileSync } from 'node:fs';
import { buildSchema, getNamedType, isEnumType, isInputObjectType, isObjectType, type GraphQLNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { campaignStatuses, campaignStatusFilters, directions, messageStatuses } from '../../src/analytics/filters.js';
import { actorTypes, callOutcomes, callStatuses, exceptionKinds, timelineEventTypes } from '../../src/scheduling/fields.js';
import { busyKinds } from '../../src/scheduling/slots.js';
import { slotRefusalCodes } from '../../src/errors/app-error.js';
import { assignmentStrategies } from '../../src/scheduling/assignment.js';
import { callStatuses as videoCallStatuses, participantRoles, recordingStatuses } from '../../src/video/lifecycle.js';
import { deliveryStatuses, subscriptionStatuses } from '../../src/webhooks/service.js';
import { deliveryTypes } from '../../src/webhooks/patterns.js';
import { inboundEventKinds, sendKinds, sendMessageTypes } from '../../src/sends/service.js';
import { flowActions, flowModes } from '../../src/sends/kinds/flow.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });

const sdl = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

// Each closed set: its enum, its values, and the fields and arguments that carry it.
const closedSets: { name: string; values: readonly string[]; fields: string[]; args?: string[] }[] = [
  { name: 'MessageStatus', values: messageStatuses, fields: ['Message.status', 'SentMessage.status'], args: ['Query.messages.status'] },
  { name: 'MessageDirection', values: directions, fields: ['Message.direction'], args: ['Query.messages.direction'] },
  { name: 'CampaignStatus', values: campaignStatuses, fields: ['Campaign.status'] },
  { name: 'CampaignStatusFilter', values: campaignStatusFilters, fields: [], args: ['Query.campaigns.status'] },
  { name: 'ScheduledCallStatus', values: callStatuses, fields: ['ScheduledCall.status'], args: ['Query.scheduledCalls.status'] },
  { name: 'TimelineEventType', values: timelineEventTypes, fields: ['ScheduledCallEvent.eventType'] },
  { name: 'TimelineActorType', values: actorTypes, fields: ['ScheduledCallEvent.actorType'] },
  { name: 'AvailabilityExceptionKind', values: exceptionKinds, fields: ['AvailabilityException.kind'], args: ['Mutation.addAvailabilityException.kind'] },
  { name: 'VideoCallStatus', values: videoCallStatuses, fields: ['VideoCall.status'], args: ['Query.videoCalls.status'] },
  { name: 'VideoRecordingStatus', values: recordingStatuses, fields: ['VideoRecording.status'], args: ['Mutation.recordVideoRecordingStatus.status'] },
  { name: 'VideoParticipantRole', values: participantRoles, fields: ['VideoParticipant.role'], args: ['Mutation.recordVideoParticipantJoined.role'] },
  { name: 'WebhookSubscriptionStatus', values: subscriptionStatuses, fields: ['WebhookSubscription.status'] },
  // Dotted webhook types are no GraphQL names: the enum's names have an underscore for the dot.
  {
    name: 'WebhookEventType',
    values: deliveryTypes.map((v) => v.replace('.', '_')),
    fields: ['WebhookSubscription.eventTypes', 'WebhookDelivery.eventType'],
    args: ['Mutation.createWebhookSubscription.eventTypes'],
  },
  { name: 'SendKind', values: sendKinds, fields: ['SentMessage.kind', 'SentMessageDetails.kind'] },
  { name: 'SendMessageType', values: sendMessageTypes, fields: ['SentMessage.messageType'] },
  { name: 'WebhookDeliveryStatus', values: deliveryStatuses, fields: ['WebhookDelivery.status'], args: ['Query.webhookDeliveries.status'] },
  { name: 'ScheduledCallOutcome', values: callOutcomes, fields: [], args: ['Mutation.recordScheduledCallOutcome.outcome'] },
  { name: 'AvailabilityRejectionCode', values: slotRefusalCodes, fields: ['AvailabilityRejection.code'] },
  { name: 'AvailabilityBusyKind', values: busyKinds, fields: ['AvailabilityRejection.kind'] },
  { name: 'InboundEventKind', values: inboundEventKinds, fields: ['InboundEventResult.event'] },
  { name: 'EventActorType', values: actorTypes, fields: ['AppEvent.actorType'] },
  { name: 'AssignmentStrategy', values: assignmentStrategies, fields: ['BookingPolicy.assignment', 'BookingPolicyInput.assignment'] },
  { name: 'FlowStartAction', values: flowActions, fields: ['FlowParametersInput.flow_action'] },
  { name: 'FlowMode', values: flowModes, fields: ['FlowParametersInput.mode'] },
  { name: 'CountPrecision', values: ['EXACT', 'AT_LEAST'], fields: ['Count.precision'] },
];

function typeAt(path: string): GraphQLNamedType {
  const [typeName, fieldName, argName] = path.split('.') as [string, string, string | undefined];
  const type = sdl.getType(typeName);
  if (!type || !(isObjectType(type) || isInputObjectType(type))) throw new Error(`no type ${typeName}`);
  const field = type.getFields()[fieldName];
  if (!field) throw new Error(`no field ${path}`);
  if (argName === undefined) return getNamedType(field.type);
  const arg = 'args' in field ? field.args.find((a) => a.name === argName) : undefined;
  if (!arg) throw new Error(`no argument ${path}`);
  return getNamedType(arg.type);
}

describe('closed sets are GraphQL enums in schema.graphql', () => {
  it.each(closedSets)('$name has exactly the REST values and types its fields and arguments', ({ name, values, fields, args = [] }) => {
    const type = sdl.getType(name);
    expect(type && isEnumType(type)).toBe(true);
    if (!type || !isEnumType(type)) return;
    expect(type.getValues().map((v) => v.name).sort()).toEqual([...values].sort());
    for (const path of [...fields, ...args]) expect(typeAt(path).name, path).toBe(name);
  });
});

describe('every enum of the schema is one of the closed sets above', () => {
  it('lists each enum', () => {
    const enums = Object.values(sdl.getTypeMap()).filter((t) => isEnumType(t) && !t.name.startsWith('__')).map((t) => t.name).sort();
    expect(closedSets.map((c) => c.name).sort()).toEqual(enums);
  });
});

describe('sets that stay strings say why: open sets, or names an enum value cannot spell', () => {
  it.each([
    'Template.status',
    'Template.category',
    'Query.templates.status',
    'Query.templates.category',
    'TemplateFilter.status',
    'TemplateFilter.category',
    'ScheduledCall.bookingSource',
    'CreateScheduledCallInput.bookingSource',
    'AppEvent.type',
    'Viewer.scopes',
  ])('%s', (path) => {
    expect(typeAt(path).name).toBe('String');
    const [typeName, fieldName, argName] = path.split('.') as [string, string, string | undefined];
    const field = (sdl.getType(typeName) as import('graphql').GraphQLObjectType).getFields()[fieldName]!;
    const description = argName ? field.args.find((a) => a.name === argName)!.description : field.description;
    expect(description).toMatch(/open set|not an enum/);
  });
});

describe('enum values through the server', () => {
  it('a message filter returns the enum value it was given', async () => {
    const res = await gql(server.url, tenant.accessToken, 'query($app: UUID!) { messages(appId: $app, first: 5, direction: outbound) { edges { node { status direction } } } }', {
      app: tenant.appId,
    });
    expect(res.body.errors).toBeUndefined();
    for (const { node } of res.body.data.messages.edges) {
      expect(node.direction).toBe('outbound');
      expect(messageStatuses).toContain(node.status);
    }
  });

  it('an unknown enum value in a filter is refused as a GraphQL validation error', async () => {
    const literal = await request(`${server.url}/graphql`, {
      token: tenant.accessToken,
      json: { query: `query($app: UUID!) { messages(appId: $app, status: lost) { edges { cursor } } }`, variables: { app: tenant.appId } },
    });
    expect([200, 400]).toContain(literal.status);
    expect(literal.body.data).toBeUndefined();
    expect(literal.body.errors?.[0]?.message).toMatch(/MessageStatus/);

    const variable = await gql(server.url, tenant.accessToken, 'query($app: UUID!, $s: ScheduledCallStatus) { scheduledCalls(appId: $app, status: $s) { edges { cursor } } }', {
      app: tenant.appId,
      s: 'finished',
    });
    expect(variable.body.data).toBeUndefined();
    expect(variable.body.errors?.[0]?.extensions?.details?.[0]?.field).toBe('s');
  });

  it('a value outside an input enum is refused before the send runs, naming its path', async () => {
    const res = await gql(server.url, tenant.accessToken, 'mutation($app: UUID!, $input: FlowMessageInput!) { sendFlowMessage(appId: $app, input: $input) { message { messageId } } }', {
      app: tenant.appId,
      input: {
        to: '+447700900123',
        interactive: { body: { text: 'Book' }, action: { parameters: { flow_message_version: '3', flow_token: 'enum-test', flow_name: 'booking', flow_cta: 'Open', flow_action: 'jump' } } },
      },
    });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]?.extensions?.code).toBe('validation_error');
    expect(res.body.errors?.[0]?.extensions?.details?.[0]?.field).toBe('input.interactive.action.parameters.flow_action');
  });

  it('a webhook type is given and read by its enum name; the dotted name is no enum value', async () => {
    const created = await gql(
      server.url,
      tenant.accessToken,
      'mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "https://93.184.215.14/hooks", eventTypes: [scheduled_cancelled, scheduled_reminder]) { subscription { eventTypes } } }',
      { app: tenant.appId },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createWebhookSubscription.subscription.eventTypes).toEqual(['scheduled_cancelled', 'scheduled_reminder']);
    const dotted = await request(`${server.url}/graphql`, {
      token: tenant.accessToken,
      json: { query: 'mutation($app: UUID!, $t: [WebhookEventType!]!) { createWebhookSubscription(appId: $app, url: "https://example.com/hooks", eventTypes: $t) { secret } }', variables: { app: tenant.appId, t: ['scheduled.cancelled'] } },
    });
    expect(dotted.body.data).toBeUndefined();
    expect(dotted.body.errors?.[0]?.extensions?.details?.[0]?.field).toBe('t.0');
  });
});
