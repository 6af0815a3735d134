import { expect } from 'vitest';
import { gql } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { campaign, importRecords, message, template } from '../analytics/fixtures.js';

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

/** One record of every Node type in the tenant's app. */
export async function seedEveryNode(server: TestServer, tenant: Tenant): Promise<void> {
  const c = campaign(1);
  await importRecords(server, tenant.appId, [c, message(1, { campaign_id: c.id }), template(1)]);
  await tenantGql(server, tenant, 'mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { agentId } }', {
    input: { name: 'Agent', timezone: 'UTC', workingHours },
  });
  await tenantGql(server, tenant, 'mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "http://127.0.0.1:9/x", eventTypes: [scheduled_created]) { subscription { subscriptionId } } }');
  await tenantGql(server, tenant, 'mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { callId } }', {
    input: { scheduledAtUtc: inDays(3, 10), durationMinutes: 30, guestName: 'Ann Lee' },
  });
  await tenantGql(server, tenant, 'mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }', { cc: contactcenter });
}

export interface Listed {
  type: string;
  raw: string;
  fields: string;
  row: Record<string, unknown>;
}

/** Every Node of the tenant's app as its list fields return it: type, raw id field, selected fields, row. */
export async function listEveryNode(server: TestServer, tenant: Tenant): Promise<Listed[]> {
  const data = await tenantGql(
    server,
    tenant,
    `query($app: UUID!) {
      app(appId: $app) { id appId name }
      messages(appId: $app) { nodes { id messageId status } }
      campaigns(appId: $app) { nodes { id campaignId name } }
      templates(appId: $app) { nodes { id templateId name } }
      agents(appId: $app) { id agentId name }
      scheduledCalls(appId: $app) { nodes { id callId status events { id eventId eventType } } }
      videoCalls(appId: $app) { nodes { id callId status } }
      webhookSubscriptions(appId: $app) { id subscriptionId url }
      webhookDeliveries(appId: $app) { nodes { id deliveryId status } }
    }`,
  );
  const call = data.scheduledCalls.nodes[0];
  const { events, ...callRow } = call;
  const listed: Listed[] = [
    { type: 'App', raw: 'appId', fields: 'appId name', row: data.app },
    { type: 'Message', raw: 'messageId', fields: 'messageId status', row: data.messages.nodes[0] },
    { type: 'Campaign', raw: 'campaignId', fields: 'campaignId name', row: data.campaigns.nodes[0] },
    { type: 'Template', raw: 'templateId', fields: 'templateId name', row: data.templates.nodes[0] },
    { type: 'Agent', raw: 'agentId', fields: 'agentId name', row: data.agents[0] },
    { type: 'ScheduledCall', raw: 'callId', fields: 'callId status', row: callRow },
    { type: 'ScheduledCallEvent', raw: 'eventId', fields: 'eventId eventType', row: events[0] },
    { type: 'VideoCall', raw: 'callId', fields: 'callId status', row: data.videoCalls.nodes[0] },
    { type: 'WebhookSubscription', raw: 'subscriptionId', fields: 'subscriptionId url', row: data.webhookSubscriptions[0] },
    { type: 'WebhookDelivery', raw: 'deliveryId', fields: 'deliveryId status', row: data.webhookDeliveries.nodes[0] },
  ];
  for (const { type, row } of listed) expect(row, `a ${type} to list`).toBeDefined();
  return listed;
}

export const globalId = (type: string, raw: string) => Buffer.from(`${type}:${raw}`).toString('base64');
