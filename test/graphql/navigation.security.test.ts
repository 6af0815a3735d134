import { beforeAll, describe, expect, it } from 'vitest';
import { campaign, importRecords, message } from '../analytics/fixtures.js';
import { gql } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true, overrides: { GRAPHQL_COUNT_CAP: '5' } });
let stranger: Tenant;

beforeAll(async () => {
  stranger = await server.tenant();
  await importRecords(server, tenant.appId, [message(1), message(2, { status: 'sent' })]);
  await importRecords(server, stranger.appId, Array.from({ length: 9 }, (_, i) => message(10 + i, { id: `stranger-${i}`, status: 'sent' })));
  await importRecords(server, stranger.appId, [campaign(1)]);
});

const codeOf = (res: { body: { errors?: { extensions?: Record<string, unknown> }[] } }) => res.body.errors?.[0]?.extensions?.code;

describe('navigation: tenancy', () => {
  it('a foreign app through app(id:) is refused as app(appId:) and the root lists refuse it', async () => {
    const byId = await gql(server.url, tenant.accessToken, `query($id: ID!) { app(id: $id) { messages { nodes { messageId } } } }`, { id: stranger.appId });
    const byAppId = await gql(server.url, tenant.accessToken, `query($app: UUID!) { app(appId: $app) { messages { nodes { messageId } } } }`, { app: stranger.appId });
    const root = await gql(server.url, tenant.accessToken, `query($app: UUID!) { messages(appId: $app) { nodes { messageId } } }`, { app: stranger.appId });
    for (const res of [byId, byAppId, root]) {
      expect(res.body.data ?? null).toBeNull();
      expect(codeOf(res)).toBe('forbidden');
    }
    // By the App's global id too.
    const globalId = Buffer.from(`App:${stranger.appId}`).toString('base64');
    const byGlobal = await gql(server.url, tenant.accessToken, `query($id: ID!) { app(id: $id) { appId } }`, { id: globalId });
    expect(codeOf(byGlobal)).toBe('forbidden');
  });

  it("viewer.apps lists only the token's apps", async () => {
    const res = await gql(server.url, tenant.accessToken, `{ viewer { apps { appId messages { nodes { messageId } } } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.viewer.apps.map((a: { appId: string }) => a.appId)).toEqual([tenant.appId]);
    const ids = res.body.data.viewer.apps[0].messages.nodes.map((m: { messageId: string }) => m.messageId);
    expect(ids.sort()).toEqual(['msg-00001', 'msg-00002']);
  });

  it("a count never counts another app's rows, with or without a filter", async () => {
    const res = await gql(
      server.url,
      tenant.accessToken,
      `query($app: UUID!) {
        all: messages(appId: $app) { count { count precision } }
        sent: messages(appId: $app, filter: { status: sent }) { count { count precision } }
        app(appId: $app) { campaigns { count { count precision } } }
      }`,
      { app: tenant.appId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.all.count).toEqual({ count: 2, precision: 'EXACT' });
    expect(res.body.data.sent.count).toEqual({ count: 1, precision: 'EXACT' });
    expect(res.body.data.app.campaigns.count).toEqual({ count: 0, precision: 'EXACT' });
    const theirs = await gql(server.url, stranger.accessToken, `query($app: ID!) { app(id: $app) { messages { count { count precision } } } }`, { app: stranger.appId });
    expect(theirs.body.data.app.messages.count).toEqual({ count: 5, precision: 'AT_LEAST' });
  });
});

describe('navigation: scopes', () => {
  it('a nested list the token has no scope for is refused as its root field is; the others answer', async () => {
    const reader = await (await server.client({ apps: [tenant.appId], scopes: ['messages:read'] })).token();
    const nested = await gql(server.url, reader, `query($app: ID!) { app(id: $app) { campaigns { nodes { campaignId } } } }`, { app: tenant.appId });
    const root = await gql(server.url, reader, `query($app: UUID!) { campaigns(appId: $app) { nodes { campaignId } } }`, { app: tenant.appId });
    expect(codeOf(nested)).toBe('forbidden');
    expect(codeOf(root)).toBe('forbidden');
    expect((nested.body.errors as any)[0].path).toEqual(['app', 'campaigns']);
    for (const field of ['templates { nodes { templateId } }', 'scheduledCalls { nodes { callId } }', 'videoCalls { nodes { callId } }', 'webhookDeliveries { nodes { deliveryId } }', 'agents { agentId }', 'summaryMetrics { sent }']) {
      const res = await gql(server.url, reader, `query($app: ID!) { app(id: $app) { ${field} } }`, { app: tenant.appId });
      expect(codeOf(res), field).toBe('forbidden');
    }
    const allowed = await gql(server.url, reader, `query($app: ID!) { app(id: $app) { messages { nodes { messageId } } } }`, { app: tenant.appId });
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data.app.messages.nodes).toHaveLength(2);
  });

  it('viewer.apps applies the same scope rule to each nested list', async () => {
    const reader = await (await server.client({ apps: [tenant.appId, stranger.appId], scopes: ['campaigns:read'] })).token();
    const res = await gql(server.url, reader, `{ viewer { apps { appId messages { nodes { messageId } } } } }`);
    expect(codeOf(res)).toBe('forbidden');
    expect((res.body.errors as any)[0].path.slice(0, 2)).toEqual(['viewer', 'apps']);
  });
});
