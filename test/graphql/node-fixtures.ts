import { expect } from 'vitest';
import { gql } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { campaign, importRecords, message, template } from '../analytics/fixtures.js';
import { catalogRecords, newPhone, productListBody, send, userWrote } from '../sends/fixtures.js';

const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
const workingHours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '23:59']]]));
const inDays = (days: number, hour: number) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};

export async function tenantGql(server: TestServer, tenant: Tenant, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data as Record<string, any>;
}

/** The message sent in each app, which sentMessage reads back. */
const sentIds = new Map<string, string>();

/** One record of every Node type in the tenant's app. */
export async function seedEveryNode(server: TestServer, tenant: Tenant): Promise<void> {
  const c = campaign(1);
  await importRecords(server, tenant.appId, [c, message(1, { campaign_id: c.id }), template(1), ...catalogRecords('cat-node', ['p-1'])]);
  const agent = await tenantGql(server, tenant, 'mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { agentId } }', {
    input: { name: 'Agent', timezone: 'UTC', workingHours },
  });
  const window = { id: agent.saveAgent.agentId, from: inDays(5, 1), to: inDays(5, 2) };
  await tenantGql(server, tenant, 'mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addAvailabilityException(appId: $app, agentId: $id, kind: blocked, startUtc: $from, endUtc: $to) { exceptionId } }', window);
  await tenantGql(server, tenant, 'mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addDndWindow(appId: $app, agentId: $id, startUtc: $from, endUtc: $to) { windowId } }', window);
  const phone = newPhone();
  await userWrote(server, tenant, phone);
  const sent = await send(server, tenant, productListBody(phone, 'cat-node', [['p-1']]));
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  sentIds.set(tenant.appId, sent.body.data.message.id);
  await tenantGql(server, tenant, 'mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "http://127.0.0.1:9/x", eventTypes: [scheduled_created]) { subscription { subscriptionId } } }');
  await tenantGql(server, tenant, 'mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { callId } }', {
    input: { scheduledAtUtc: inDays(3, 10), durationMinutes: 30, guestName: 'Ann Lee' },
  });
  const video = await tenantGql(server, tenant, 'mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }', { cc: contactcenter });
  const call = { call: video.createVideoCall.callId };
  await tenantGql(server, tenant, 'mutation($app: UUID!, $call: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "guest-1", role: participant, name: "G") { callId } }', call);
  await tenantGql(server, tenant, 'mutation($app: UUID!, $call: UUID!) { recordVideoRecordingStatus(appId: $app, callId: $call, providerArchiveId: "arch-1", status: processing) { callId } }', call);
}

export interface Listed {
  type: string;
  raw: string;
  /** What the global id names after the app: the raw id, after its call's id for a call's participant or recording. */
  key: string;
  fields: string;
  row: Record<string, unknown>;
}

/** Every Node of the tenant's app as its list fields return it: type, raw id field, selected fields, row. */
export async function listEveryNode(server: TestServer, tenant: Tenant): Promise<Listed[]> {
  const data = await tenantGql(
    server,
    tenant,
    `query($app: UUID!, $sent: String!) {
      app(appId: $app) { id appId name }
      messages(appId: $app, first: 5) { nodes { id messageId status } }
      campaigns(appId: $app, first: 5) { nodes { id campaignId name } }
      templates(appId: $app, first: 5) { nodes { id templateId name } }
      agents(appId: $app) { id agentId name exceptions { id exceptionId kind } dndWindows { id windowId startUtc } }
      scheduledCalls(appId: $app, first: 5) { nodes { id callId status events { id eventId eventType } } }
      videoCalls(appId: $app, first: 5) { nodes { id callId status participants { id participantId callId name } recordings { id recordingId callId status } } }
      sentMessage(appId: $app, messageId: $sent) { id messageId kind }
      webhookSubscriptions(appId: $app) { id subscriptionId url }
      webhookDeliveries(appId: $app, first: 5) { nodes { id deliveryId status } }
      events(appId: $app, first: 1) { nodes { id eventId type } }
    }`,
    { sent: sentIds.get(tenant.appId) },
  );
  const call = data.scheduledCalls.nodes[0];
  const { events, ...callRow } = call;
  const { exceptions, dndWindows, ...agentRow } = data.agents[0];
  const { participants, recordings, ...videoRow } = data.videoCalls.nodes[0];
  const listed: Omit<Listed, 'key'>[] = [
    { type: 'App', raw: 'appId', fields: 'appId name', row: data.app },
    { type: 'Message', raw: 'messageId', fields: 'messageId status', row: data.messages.nodes[0] },
    { type: 'Campaign', raw: 'campaignId', fields: 'campaignId name', row: data.campaigns.nodes[0] },
    { type: 'Template', raw: 'templateId', fields: 'templateId name', row: data.templates.nodes[0] },
    { type: 'Agent', raw: 'agentId', fields: 'agentId name', row: agentRow },
    { type: 'AvailabilityException', raw: 'exceptionId', fields: 'exceptionId kind', row: exceptions[0] },
    { type: 'DndWindow', raw: 'windowId', fields: 'windowId startUtc', row: dndWindows[0] },
    { type: 'ScheduledCall', raw: 'callId', fields: 'callId status', row: callRow },
    { type: 'ScheduledCallEvent', raw: 'eventId', fields: 'eventId eventType', row: events[0] },
    { type: 'VideoCall', raw: 'callId', fields: 'callId status', row: videoRow },
    { type: 'VideoParticipant', raw: 'participantId', fields: 'participantId callId name', row: participants[0] },
    { type: 'VideoRecording', raw: 'recordingId', fields: 'recordingId callId status', row: recordings[0] },
    { type: 'SentMessageDetails', raw: 'messageId', fields: 'messageId kind', row: data.sentMessage },
    { type: 'WebhookSubscription', raw: 'subscriptionId', fields: 'subscriptionId url', row: data.webhookSubscriptions[0] },
    { type: 'WebhookDelivery', raw: 'deliveryId', fields: 'deliveryId status', row: data.webhookDeliveries.nodes[0] },
    { type: 'AppEvent', raw: 'eventId', fields: 'eventId type', row: data.events.nodes[0] },
  ];
  for (const { type, row } of listed) expect(row, `a ${type} to list`).toBeDefined();
  return listed.map((l) => ({ ...l, key: l.row.callId && l.type.startsWith('Video') && l.type !== 'VideoCall' ? `${l.row.callId}:${l.row[l.raw]}` : String(l.row[l.raw]) }));
}

export const globalId = (type: string, raw: string) => Buffer.from(`${type}:${raw}`).toString('base64');
