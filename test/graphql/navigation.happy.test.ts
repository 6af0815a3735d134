import { isObjectType, type GraphQLObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { importRecords, campaign, message, template } from '../analytics/fixtures.js';
import { gql } from '../helpers/http.js';
import { allScopes } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// A low cap, so "more rows than the cap" takes 30 rows rather than 10,001.
const CAP = 25;
const { server, tenant } = useServer({ tenant: true, overrides: { GRAPHQL_COUNT_CAP: String(CAP), WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' } });

let otherAppId = '';
let bothToken = '';
const q = (query: string, variables?: Record<string, unknown>, token = tenant.accessToken) => gql(server.url, token, query, variables);

beforeAll(async () => {
  // 40 messages here (more than the cap), 10 campaigns, 6 templates; another app with its own rows.
  await importRecords(server, tenant.appId, [
    ...Array.from({ length: 40 }, (_, i) => message(i + 1)),
    ...Array.from({ length: 10 }, (_, i) => campaign(i + 1)),
    ...Array.from({ length: 6 }, (_, i) => template(i + 1)),
  ]);
  const other = await server.tenant();
  otherAppId = other.appId;
  await importRecords(server, otherAppId, [
    ...Array.from({ length: 12 }, (_, i) => message(100 + i, { id: `other-${i}` })),
    ...Array.from({ length: 3 }, (_, i) => campaign(100 + i, { id: `00000000-0000-4000-8000-1000000000${String(i).padStart(2, '0')}` })),
  ]);
  bothToken = await (await server.client({ apps: [tenant.appId, otherAppId], scopes: allScopes })).token();
});

describe('navigation: app(id:) reaches the lists of the app', () => {
  it('app.messages returns the rows, order and cursor of the root messages field', async () => {
    const res = await q(
      `query($app: UUID!) {
        root: messages(appId: $app, first: 7, status: sent) { nodes { messageId status createdAt } pageInfo { hasNextPage endCursor } }
        app(appId: $app) { messages(first: 7, filter: { status: sent }) { nodes { messageId status createdAt } pageInfo { hasNextPage endCursor } } }
      }`,
      { app: tenant.appId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.root.nodes.length).toBe(7);
    expect(res.body.data.app.messages).toEqual(res.body.data.root);
    const after = res.body.data.root.pageInfo.endCursor;
    const next = await q(
      `query($app: UUID!, $after: String) {
        root: messages(appId: $app, first: 7, status: sent, after: $after) { nodes { messageId } }
        app(appId: $app) { messages(first: 7, after: $after, filter: { status: sent }) { nodes { messageId } } }
      }`,
      { app: tenant.appId, after },
    );
    expect(next.body.data.app.messages).toEqual(next.body.data.root);
  });

  it('pageInfo has the four Relay fields: startCursor is the first edge cursor, hasPreviousPage false', async () => {
    const res = await q(`query($app: ID!) { app(id: $app) { messages(first: 3) { edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
      none: messages(filter: { channel: "fax" }) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`, { app: tenant.appId });
    expect(res.body.errors).toBeUndefined();
    const { edges, pageInfo } = res.body.data.app.messages;
    expect(pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: edges[0].cursor, endCursor: edges[2].cursor });
    expect(res.body.data.app.none.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });

  it('every list field on App answers what its root field answers', async () => {
    const res = await q(
      `query($app: UUID!) {
        rc: campaigns(appId: $app, first: 4, status: [active, paused]) { nodes { campaignId status stats { sent } } }
        rt: templates(appId: $app, category: "UTILITY") { nodes { templateId } }
        rs: scheduledCalls(appId: $app) { nodes { callId } }
        rv: videoCalls(appId: $app) { nodes { callId } }
        ra: agents(appId: $app) { agentId }
        rw: webhookSubscriptions(appId: $app) { subscriptionId }
        rd: webhookDeliveries(appId: $app) { nodes { deliveryId } }
        rm: summaryMetrics(appId: $app) { sent delivered read failed }
        rg: campaignTags(appId: $app)
        re: events(appId: $app, first: 5) { nodes { eventId type } }
        ry: dailyMetrics(appId: $app, startDate: "2026-03-01T00:00:00Z", endDate: "2026-03-08T00:00:00Z") { date sent }
        app(appId: $app) {
          appId
          campaigns(first: 4, filter: { status: [active, paused] }) { nodes { campaignId status stats { sent } } }
          templates(filter: { category: "UTILITY" }) { nodes { templateId } }
          scheduledCalls { nodes { callId } }
          videoCalls { nodes { callId } }
          agents { agentId }
          webhookSubscriptions { subscriptionId }
          webhookDeliveries { nodes { deliveryId } }
          summaryMetrics { sent delivered read failed }
          campaignTags
          events(first: 5) { nodes { eventId type } }
          dailyMetrics(startDate: "2026-03-01T00:00:00Z", endDate: "2026-03-08T00:00:00Z") { date sent }
        }
      }`,
      { app: tenant.appId },
    );
    expect(res.body.errors).toBeUndefined();
    const { app, ...root } = res.body.data;
    expect(app.appId).toBe(tenant.appId);
    expect(root.rc.nodes.length).toBeGreaterThan(0);
    expect(root.rt.nodes.length).toBe(3);
    expect(app.campaigns).toEqual(root.rc);
    expect(app.templates).toEqual(root.rt);
    expect(app.scheduledCalls).toEqual(root.rs);
    expect(app.videoCalls).toEqual(root.rv);
    expect(app.agents).toEqual(root.ra);
    expect(app.webhookSubscriptions).toEqual(root.rw);
    expect(app.webhookDeliveries).toEqual(root.rd);
    expect(app.summaryMetrics).toEqual(root.rm);
    expect(app.campaignTags).toEqual(root.rg);
    expect(app.events).toEqual(root.re);
    expect(app.dailyMetrics).toEqual(root.ry);
  });

  it('every root field that reads a list of one app has its field on App', () => {
    const query = schema.getQueryType()!.getFields();
    const app = (schema.getType('App') as GraphQLObjectType).getFields();
    // The root fields that read one record by its id are reached by node(id:) instead.
    const single = ['agent', 'message', 'scheduledCall', 'sentMessage', 'template', 'videoCall'];
    const perApp = Object.values(query).filter((f) => f.args.some((a) => a.name === 'appId') && f.name !== 'app' && !single.includes(f.name));
    expect(perApp.length).toBeGreaterThan(10);
    for (const f of perApp) expect(app[f.name]?.type.toString(), f.name).toBe(f.type.toString());
  });

  it('app(id:) takes the App global id as well as the raw UUID, and app(appId:) still works', async () => {
    const byAppId = await q(`query($app: UUID!) { app(appId: $app) { id appId name } }`, { app: tenant.appId });
    expect(byAppId.body.errors).toBeUndefined();
    const globalId = byAppId.body.data.app.id;
    const byGlobal = await q(`query($id: ID!) { app(id: $id) { id appId name } }`, { id: globalId });
    expect(byGlobal.body.data.app).toEqual(byAppId.body.data.app);
    const byRaw = await q(`query($id: ID!) { app(id: $id) { id appId name } }`, { id: tenant.appId.toUpperCase() });
    expect(byRaw.body.data.app).toEqual(byAppId.body.data.app);
  });

  it("viewer.apps lists the token's apps, each with its own rows, from one app query", async () => {
    const query = `{ viewer { appIds apps { appId messages(first: 1) { count { count precision } } campaigns { nodes { campaignId } } } } }`;
    const before = server.runtime.database.queries.count;
    const res = await q(query, undefined, bothToken);
    const statements = server.runtime.database.queries.count - before;
    expect(res.body.errors).toBeUndefined();
    const apps = res.body.data.viewer.apps;
    expect(apps.map((a: { appId: string }) => a.appId).sort()).toEqual([tenant.appId, otherAppId].sort());
    expect(res.body.data.viewer.appIds.sort()).toEqual([tenant.appId, otherAppId].sort());
    const mine = apps.find((a: { appId: string }) => a.appId === tenant.appId);
    const theirs = apps.find((a: { appId: string }) => a.appId === otherAppId);
    expect(mine.messages.count).toEqual({ count: CAP, precision: 'AT_LEAST' });
    expect(theirs.messages.count).toEqual({ count: 12, precision: 'EXACT' });
    expect(mine.campaigns.nodes).toHaveLength(10);
    expect(theirs.campaigns.nodes).toHaveLength(3);
    // One statement for both apps' rows, then per app at most: a message page, its count, a
    // campaign page and one campaign-stats query for the page.
    const measure = async (query: string) => {
      const from = server.runtime.database.queries.count;
      expect((await q(query, undefined, bothToken)).body.errors).toBeUndefined();
      return server.runtime.database.queries.count - from;
    };
    // Beyond what the request itself costs (its token check), both apps take one statement.
    const bare = await measure(`{ viewer { clientId } }`);
    expect((await measure(`{ viewer { apps { appId name } } }`)) - bare).toBe(1);
    expect(statements - bare).toBeLessThanOrEqual(1 + 2 * 4);
  });
});

describe('filters', () => {
  it('a filter input narrows the page exactly as the loose arguments do', async () => {
    const res = await q(
      `query($app: UUID!) {
        loose: messages(appId: $app, direction: inbound, channel: "whatsapp", search: "wamid.1") { nodes { messageId } }
        typed: messages(appId: $app, filter: { direction: inbound, channel: "whatsapp", search: "wamid.1" }) { nodes { messageId } }
        app(appId: $app) { messages(filter: { direction: inbound, channel: "whatsapp", search: "wamid.1" }) { nodes { messageId direction channel } } }
      }`,
      { app: tenant.appId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.loose.nodes.length).toBeGreaterThan(0);
    expect(res.body.data.typed).toEqual(res.body.data.loose);
    for (const m of res.body.data.app.messages.nodes) expect([m.direction, m.channel]).toEqual(['inbound', 'whatsapp']);
    expect(res.body.data.app.messages.nodes.map((m: { messageId: string }) => m.messageId)).toEqual(res.body.data.loose.nodes.map((m: { messageId: string }) => m.messageId));
  });

  it('a filter passed as a variable works like a literal one', async () => {
    const res = await q(
      `query($app: ID!, $filter: CampaignFilter) { app(id: $app) { campaigns(filter: $filter) { nodes { tags } count { count precision } } } }`,
      { app: tenant.appId, filter: { tags: ['autumn'], createdFrom: '2026-03-01T00:00:00Z' } },
    );
    expect(res.body.errors).toBeUndefined();
    const { nodes, count } = res.body.data.app.campaigns;
    expect(nodes).toHaveLength(5);
    for (const c of nodes) expect(c.tags).toContain('autumn');
    expect(count).toEqual({ count: 5, precision: 'EXACT' });
  });
});

describe('counts', () => {
  it('exact below the cap, the cap with AT_LEAST above it, whatever the page size and cursor', async () => {
    const res = await q(
      `query($app: ID!) { app(id: $app) {
        all: messages(first: 2) { count { count precision } }
        sent: messages(first: 2, filter: { status: sent }) { count { count precision } pageInfo { endCursor } }
        none: messages(filter: { channel: "fax" }) { nodes { messageId } count { count precision } }
        templates { count { count precision } }
      } }`,
      { app: tenant.appId },
    );
    expect(res.body.errors).toBeUndefined();
    const app = res.body.data.app;
    expect(app.all.count).toEqual({ count: CAP, precision: 'AT_LEAST' });
    expect(app.sent.count).toEqual({ count: 10, precision: 'EXACT' });
    expect(app.none).toEqual({ nodes: [], count: { count: 0, precision: 'EXACT' } });
    expect(app.templates.count).toEqual({ count: 6, precision: 'EXACT' });
    // The count is the filter's, not what follows the cursor.
    const next = await q(`query($app: UUID!, $after: String) { messages(appId: $app, first: 2, status: sent, after: $after) { count { count precision } } }`, {
      app: tenant.appId,
      after: app.sent.pageInfo.endCursor,
    });
    expect(next.body.data.messages.count).toEqual({ count: 10, precision: 'EXACT' });
  });

  it('runs one count statement when selected and none otherwise', async () => {
    const statements = async (query: string) => {
      const before = server.runtime.database.queries.count;
      const res = await q(query, { app: tenant.appId });
      expect(res.body.errors).toBeUndefined();
      return server.runtime.database.queries.count - before;
    };
    const without = `query($app: UUID!) { messages(appId: $app, first: 3, status: read) { nodes { messageId } } }`;
    const withCount = `query($app: UUID!) { messages(appId: $app, first: 3, status: read) { nodes { messageId } count { count } } }`;
    await statements(withCount); // warm: the token lookup is cached after the first request
    const a = await statements(without);
    const b = await statements(withCount);
    expect(b - a).toBe(1);
  });

  it('is charged in the query cost', async () => {
    const cost = async (query: string) => ((await q(query, { app: tenant.appId })).body as any).extensions.cost.requestedQueryCost as number;
    const plain = await cost(`query($app: UUID!) { messages(appId: $app, first: 20) { limit } }`);
    const counted = await cost(`query($app: UUID!) { messages(appId: $app, first: 20) { limit count { count } } }`);
    expect(counted).toBeGreaterThan(plain);
    // viewer.apps runs its selection once per app of the token.
    const perApp = async (token: string) =>
      ((await q(`{ viewer { apps { messages(first: 20) { limit } } } }`, undefined, token)).body as any).extensions.cost.requestedQueryCost as number;
    const one = await perApp(tenant.accessToken);
    const two = await perApp(bothToken);
    // messages(first: 20) { limit } costs 2 (1 + 1 × 1): once more for the second app.
    expect(two).toBe(one + 2);
  });
});

describe('counts on every connection', () => {
  it('each connection type has count: Count!', () => {
    const connections = Object.values(schema.getTypeMap()).filter((t): t is GraphQLObjectType => isObjectType(t) && t.name.endsWith('Connection'));
    expect(connections.length).toBeGreaterThanOrEqual(7);
    for (const c of connections) expect(c.getFields().count?.type.toString(), c.name).toBe('Count!');
  });

  it('scheduled calls, video calls, webhook deliveries and events are counted under their filter', async () => {
    // An app of its own, so its agent and calls stay out of the other tests' answers.
    const own = await server.tenant();
    const hours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
    const ok = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await q(query, { app: own.appId, ...variables }, own.accessToken);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    await ok('mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { agentId } }', { input: { name: 'Ann', timezone: 'UTC', workingHours: hours } });
    for (const days of [5, 6, 7]) {
      const at = new Date();
      at.setUTCDate(at.getUTCDate() + days);
      at.setUTCHours(10, 0, 0, 0);
      await ok('mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { callId } }', { input: { scheduledAtUtc: at.toISOString(), durationMinutes: 30, guestName: 'G' } });
    }
    const cc = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
    for (let i = 0; i < 2; i++) await ok('mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }', { cc });
    const sub = await ok('mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "http://127.0.0.1:9/hook", events: ["*"]) { subscription { subscriptionId } } }');
    await ok('mutation($app: UUID!, $id: UUID!) { pingWebhookSubscription(appId: $app, id: $id) { deliveryId } }', { id: sub.createWebhookSubscription.subscription.subscriptionId });
    const data = await ok(`query($app: ID!) { app(id: $app) {
      scheduledCalls(first: 1) { count { count precision } }
      cancelled: scheduledCalls(filter: { status: cancelled }) { count { count precision } }
      videoCalls(first: 1) { count { count precision } }
      ended: videoCalls(filter: { status: ended }) { count { count precision } }
      webhookDeliveries(first: 1, filter: { status: pending }) { count { count precision } }
      events(first: 1) { count { count precision } }
      callEvents: events(first: 1, filter: { types: ["scheduled_call.*"] }) { count { count precision } }
    } }`);
    const exact = (count: number) => ({ count: { count, precision: 'EXACT' } });
    expect(data.app.scheduledCalls).toEqual(exact(3));
    expect(data.app.cancelled).toEqual(exact(0));
    expect(data.app.videoCalls).toEqual(exact(2));
    expect(data.app.ended).toEqual(exact(0));
    expect(data.app.webhookDeliveries).toEqual(exact(1));
    expect(data.app.callEvents).toEqual(exact(3));
    expect(data.app.events.count.count).toBeGreaterThanOrEqual(3);
  });
});

describe('availability on App', () => {
  it('answers what the root availability answers, and refuses its arguments the same way', async () => {
    // 2030-01-07 is a Monday: the agent works 09:00-11:00 UTC.
    const agent = await q(`mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "Ada", timezone: "UTC", workingHours: { mon: [["09:00", "11:00"]] } }) { agentId } }`, { app: tenant.appId });
    expect(agent.body.errors).toBeUndefined();
    const args = 'fromUtc: "2030-01-07T09:00:00Z", toUtc: "2030-01-07T12:00:00Z", durationMinutes: 30';
    const res = await q(`query($app: UUID!) { root: availability(appId: $app, ${args}) { slots { startUtc agentId } } app(appId: $app) { availability(${args}) { slots { startUtc agentId } } } }`, {
      app: tenant.appId,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.root.slots).toHaveLength(4);
    expect(res.body.data.app.availability).toEqual(res.body.data.root);
    const bad = await q(`query($app: UUID!) { app(appId: $app) { availability(fromUtc: "2030-01-07T09:00:00Z", toUtc: "2030-01-07T12:00:00Z", durationMinutes: 2) { slots { startUtc } } } }`, {
      app: tenant.appId,
    });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
    expect(bad.body.errors?.[0]?.extensions?.details?.[0]?.field).toBe('durationMinutes');
  });
});
