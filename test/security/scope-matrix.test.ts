import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { scopes, type Scope } from '../../src/auth/scopes.js';
import { signAccessToken } from '../../src/auth/tokens.js';
import { requiredScope } from '../../src/graphql/field-scope.js';
import { schema } from '../../src/graphql/schema.js';
import { restRoutes, videoHostRoutes } from '../../src/rest/routes.js';
import { campaign, importRecords, template } from '../analytics/fixtures.js';
import { gql, request } from '../helpers/http.js';
import { catalogRecords } from '../sends/fixtures.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Every REST path of both listeners and every GraphQL root field, tried with a token holding
// exactly one scope (and one with none): `forbidden` without the scope the route table or the
// scope-auth rule names, the route's own answer with it, and `forbidden` for an app outside the
// token. REST answers it 403; GraphQL 200 with the code in errors[].extensions.code.

// Webhook receivers on this machine are allowed; no worker delivers to them.
const { server, tenant: owner } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' }, tenant: true });
let stranger: Tenant;
/** A token per column: exactly one scope, or none at all. */
const tokens = new Map<Scope | 'none', string>();
/** A token for the stranger's app only, holding the scope the case needs. */
const strangerTokens = new Map<Scope | 'none', string>();

/** Ids the success cases act on; a destructive case has one of its own. */
const f: Record<string, string> = {};

const day = (offset: number, hour: number) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offset);
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};
const phone = `4477009${String(Date.now() % 100000).padStart(5, '0')}777`;
const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
const flowMessage = () => ({
  to: phone,
  type: 'interactive',
  interactive: {
    type: 'flow',
    body: { text: 'Pick a time.' },
    action: {
      name: 'flow',
      parameters: { flow_message_version: '3', flow_token: `ft-${randomUUID()}`, flow_id: '1234567890', flow_cta: 'Book now', flow_action: 'navigate', flow_action_payload: { screen: 'WELCOME' } },
    },
  },
});
const booking = (hour: number) => ({ scheduledAtUtc: day(3, hour), durationMinutes: 30, guestName: 'Ann Lee' });

async function ownerGql(query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(server.url, owner.accessToken, query, { app: owner.appId, ...variables });
  if (res.body.errors) throw new Error(`fixture failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data as Record<string, any>;
}

beforeAll(async () => {
  stranger = await server.tenant();
  for (const scope of scopes) {
    tokens.set(scope, await (await server.client({ apps: [owner.appId], scopes: [scope] })).token());
    strangerTokens.set(scope, await (await server.client({ apps: [stranger.appId], scopes: [scope] })).token());
  }
  // A client always holds a scope; a token with none is signed directly, for a live client.
  const empty = async (app: string) =>
    (await signAccessToken(server.runtime.keys, server.runtime.tokens, { clientId: (await server.client({ apps: [app], scopes: ['oauth:revoke'] })).clientId, scopes: [], apps: [app] })).token;
  tokens.set('none', await empty(owner.appId));
  strangerTokens.set('none', await empty(stranger.appId));
  const workingHours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['06:00', '20:00']]]));
  const agent = async (hours?: object) =>
    (await ownerGql(`mutation($app: UUID!, $input: AgentInput!) { saveAgent(appId: $app, input: $input) { id: agentId } }`, { input: { name: 'Agent', timezone: 'UTC', workingHours: hours } })).saveAgent.id as string;
  f.agent = await agent(workingHours);
  // No working hours: no booking is ever given to it, so it can be deleted.
  f.agentToDelete = await agent();
  const window = { id: f.agent, from: day(9, 5), to: day(9, 6) };
  f.dnd = (await ownerGql('mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addDndWindow(appId: $app, agentId: $id, startUtc: $from, endUtc: $to) { id: windowId } }', window)).addDndWindow.id;
  f.exception = (
    await ownerGql('mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addAvailabilityException(appId: $app, agentId: $id, kind: blocked, startUtc: $from, endUtc: $to) { id: exceptionId } }', {
      ...window,
      from: day(9, 7),
      to: day(9, 8),
    })
  ).addAvailabilityException.id;
  const call = async (hour: number) =>
    (await ownerGql(`mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { id: callId } }`, { input: booking(hour) })).createScheduledCall.id as string;
  for (const [name, hour] of [['call', 7], ['callToUpdate', 8], ['callToCancel', 9], ['callForOutcome', 10], ['restCall', 11], ['restCallToUpdate', 12], ['restCallToCancel', 13], ['callForVideo', 16]] as const) f[name] = await call(hour);
  const video = async () => (await ownerGql(`mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }`, { cc: contactcenter })).createVideoCall.callId as string;
  for (const name of ['video', 'videoJoin', 'videoLeave', 'videoEnd', 'videoRecording']) f[name] = await video();
  // A participant leaves, and a recording starts, only on a call someone has joined.
  for (const id of [f.videoLeave, f.videoRecording]) {
    await ownerGql(`mutation($app: UUID!, $id: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $id, providerParticipantId: "p1", role: participant, name: "Ann") { callId } }`, { id });
  }
  const subscription = async () =>
    (await ownerGql(`mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "http://127.0.0.1:9/x", eventTypes: [scheduled_cancelled]) { subscription { id: subscriptionId } } }`)).createWebhookSubscription.subscription.id as string;
  f.webhook = await subscription();
  f.webhookToDelete = await subscription();
  f.webhookToRotate = await subscription();
  f.webhookToPing = await subscription();
  await importRecords(server, owner.appId, [campaign(1, { tags: ['vip'] }), template(1), ...catalogRecords('cat-matrix', ['p1'])]);
  // An inbound message opens the conversation window a Flow send needs.
  const inbound = await request(`${server.url}/api/v1/messaging/${owner.appId}/inbound`, { token: owner.accessToken, json: { type: 'message', id: `wamid.matrix.${randomUUID()}`, from: phone, text: 'hi' } });
  if (inbound.status !== 200) throw new Error(`fixture failed: ${JSON.stringify(inbound.body)}`);
  f.sent = (await ownerGql(`mutation($app: UUID!, $m: JSON!) { sendMessage(appId: $app, message: $m) { message { id: messageId } } }`, { m: flowMessage() })).sendMessage.message.id;
}, 60_000);

/** What a caller holding the scope gets: success, or a named refusal that is not about authorization. */
type Outcome = { status: number; code?: string };
const ok = (status = 200): Outcome => ({ status });
const refused = (status: number, code: string): Outcome => ({ status, code });

// ---------------------------------------------------------------- REST

interface RestCase {
  url: (appId: string) => string;
  init?: () => { method?: string; json?: unknown; headers?: Record<string, string> };
  expect: Outcome;
}

const v1 = (path: string) => (appId: string) => `${server.url}/api/v1${path.replace(':appId', appId)}`;
const restCases: Record<string, RestCase> = {
  'POST /oauth/revoke': { url: v1('/oauth/revoke'), init: () => ({ method: 'POST', json: { token: 'not-a-token-of-anyone' } }), expect: ok() },
  'GET /analytics/:appId/messages': { url: v1('/analytics/:appId/messages'), expect: ok() },
  'GET /analytics/:appId/messages/:id': { url: (appId) => `${server.url}/api/v1/analytics/${appId}/messages/${f.sent}`, expect: ok() },
  'GET /analytics/:appId/campaigns': { url: v1('/analytics/:appId/campaigns'), expect: ok() },
  'POST /analytics/:appId/campaigns/search': { url: v1('/analytics/:appId/campaigns/search'), init: () => ({ method: 'POST', json: { limit: 5 } }), expect: ok() },
  'GET /analytics/:appId/templates': { url: v1('/analytics/:appId/templates'), expect: ok() },
  'GET /analytics/:appId/templates/:templateId': { url: (appId) => `${server.url}/api/v1/analytics/${appId}/templates/${template(1).id}`, expect: ok() },
  'GET /analytics/:appId/tags': { url: v1('/analytics/:appId/tags'), expect: ok() },
  'GET /analytics/:appId/tags/:tag/stats': { url: v1('/analytics/:appId/tags/vip/stats'), expect: ok() },
  'GET /analytics/:appId/metrics/daily': { url: v1('/analytics/:appId/metrics/daily'), expect: ok() },
  'GET /analytics/:appId/metrics/summary': { url: v1('/analytics/:appId/metrics/summary'), expect: ok() },
  'GET /events/:appId': { url: v1('/events/:appId'), expect: ok() },
  'GET /video/:appId/availability': {
    url: (appId) => `${server.url}/api/v1/video/${appId}/availability?fromUtc=${day(4, 0)}&toUtc=${day(5, 0)}&durationMinutes=30`,
    expect: ok(),
  },
  'GET /video/:appId/scheduled-calls/:id': { url: (appId) => `${server.url}/api/v1/video/${appId}/scheduled-calls/${f.restCall}`, expect: ok() },
  'PATCH /video/:appId/scheduled-calls/:id': {
    url: (appId) => `${server.url}/api/v1/video/${appId}/scheduled-calls/${f.restCallToUpdate}`,
    init: () => ({ method: 'PATCH', json: { guestIntakeNotes: 'Prefers mornings' } }),
    expect: ok(),
  },
  'DELETE /video/:appId/scheduled-calls/:id': {
    url: (appId) => `${server.url}/api/v1/video/${appId}/scheduled-calls/${f.restCallToCancel}`,
    init: () => ({ method: 'DELETE', json: { reason: 'Guest asked' } }),
    expect: ok(),
  },
  'POST /video/:appId/scheduled-calls': { url: v1('/video/:appId/scheduled-calls'), init: () => ({ method: 'POST', json: booking(14) }), expect: ok(201) },
  'GET /video/:appId/scheduled-calls': { url: v1('/video/:appId/scheduled-calls'), expect: ok() },
  'POST /messaging/:appId/messages': { url: v1('/messaging/:appId/messages'), init: () => ({ method: 'POST', json: flowMessage() }), expect: ok(202) },
  'POST /messaging/:appId/inbound': {
    url: v1('/messaging/:appId/inbound'),
    init: () => ({ method: 'POST', json: { type: 'message', id: `wamid.matrix.${randomUUID()}`, from: phone, text: 'hello' } }),
    expect: ok(),
  },
  'video host GET /api/calls/:callId': { url: () => `${server.videoUrl}/api/calls/${f.video}`, expect: ok() },
};

const restTable = [
  ...restRoutes.map((route) => ({ key: `${route.method} ${route.path}`, route, video: false })),
  ...videoHostRoutes.map((route) => ({ key: `video host ${route.method} ${route.path}`, route, video: true })),
];
const restScope = (key: string): Scope | undefined => {
  const entry = restTable.find((r) => r.key === key)!;
  const document = entry.route.document;
  const field = /\{\s*(\w+)\s*\(/.exec(document.slice(document.indexOf('{')))![1]!;
  const root = /^\s*mutation/.test(document) ? schema.getMutationType()! : schema.getQueryType()!;
  return requiredScope(root.getFields()[field]!);
};

const columns = [...scopes, 'none'] as const;
const restMatrix = Object.keys(restCases).flatMap((key) =>
  columns.map((column) => {
    const needed = restScope(key);
    const granted = needed === undefined || column === needed;
    const c = restCases[key]!;
    return { name: `${key} with ${column} → ${granted ? c.expect.status : 403}`, key, column, granted };
  }),
);

const restCall = async (key: string, token: string, appId: string) => {
  const c = restCases[key]!;
  const init = c.init?.() ?? {};
  return request(c.url(appId), { token, method: init.method ?? 'GET', json: init.json, headers: init.headers });
};
const errorType = (body: any) => body?.error?.type;

describe('REST: the route table and the matrix name the same paths', () => {
  it('every route of both listeners has a case, and every case a route', () => {
    expect(Object.keys(restCases).sort()).toEqual(restTable.map((r) => r.key).sort());
    for (const { key } of restTable) expect(restScope(key), key).toBeDefined();
  });
});

// The scope of each path as the interface documents it: a route whose rule drifts fails here,
// not only in the matrix (which follows the rule).
const documentedRestScopes: Record<string, Scope> = {
  'POST /oauth/revoke': 'oauth:revoke',
  'GET /analytics/:appId/messages': 'messages:read',
  'GET /analytics/:appId/messages/:id': 'messages:read',
  'GET /analytics/:appId/campaigns': 'campaigns:read',
  'POST /analytics/:appId/campaigns/search': 'campaigns:read',
  'GET /analytics/:appId/templates': 'analytics:read',
  'GET /analytics/:appId/templates/:templateId': 'analytics:read',
  'GET /analytics/:appId/tags': 'analytics:read',
  'GET /analytics/:appId/tags/:tag/stats': 'analytics:read',
  'GET /analytics/:appId/metrics/daily': 'analytics:read',
  'GET /analytics/:appId/metrics/summary': 'analytics:read',
  'GET /events/:appId': 'events:read',
  'GET /video/:appId/availability': 'scheduling:read',
  'GET /video/:appId/scheduled-calls/:id': 'scheduling:read',
  'PATCH /video/:appId/scheduled-calls/:id': 'scheduling:write',
  'DELETE /video/:appId/scheduled-calls/:id': 'scheduling:write',
  'POST /video/:appId/scheduled-calls': 'scheduling:write',
  'GET /video/:appId/scheduled-calls': 'scheduling:read',
  'POST /messaging/:appId/messages': 'messages:send',
  'POST /messaging/:appId/inbound': 'messages:ingest',
  'video host GET /api/calls/:callId': 'video:read',
};

describe('REST: the scope each route declares is the documented one', () => {
  it.each(Object.entries(documentedRestScopes))('%s needs %s', (key, scope) => {
    expect(restScope(key)).toBe(scope);
  });
});

describe('REST: one scope per token', () => {
  // The refusals first, so a destructive route's one success acts on its fixture last.
  const ordered = [...restMatrix.filter((c) => !c.granted), ...restMatrix.filter((c) => c.granted)];
  it.each(ordered)('$name', async ({ key, column, granted }) => {
    const res = await restCall(key, tokens.get(column)!, owner.appId);
    if (!granted) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(errorType(res.body)).toBe('forbidden');
      return;
    }
    const expected = restCases[key]!.expect;
    expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
    if (expected.code) expect(errorType(res.body)).toBe(expected.code);
  });
});

describe('REST: the right scope for another app', () => {
  const cases = Object.keys(restCases).map((key) => ({ key, name: `${key} with ${restScope(key)} for another app → ${key.startsWith('video host') ? 404 : key === 'POST /oauth/revoke' ? 200 : 403}` }));
  it.each(cases)('$name', async ({ key }) => {
    const res = await restCall(key, strangerTokens.get(restScope(key)!)!, owner.appId);
    if (key.startsWith('video host')) {
      // The lookup path names no app: another app's call is not found.
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(errorType(res.body)).toBe('not_found');
    } else if (key === 'POST /oauth/revoke') {
      // Revocation names no app either; a token of another client is revoked as nothing.
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } else {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(errorType(res.body)).toBe('forbidden');
    }
  });
});

// ---------------------------------------------------------------- GraphQL

interface GqlCase {
  query: string;
  variables?: () => Record<string, unknown>;
  expect: Outcome;
  /** Fields that name no app: what a token for another app gets. */
  foreign?: Outcome;
}

const unknownId = randomUUID();
const gqlCases: Record<string, GqlCase> = {
  'Query.agent': { query: 'query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { id: agentId } }', variables: () => ({ id: f.agent }), expect: ok() },
  'Query.agents': { query: 'query($app: UUID!) { agents(appId: $app) { id: agentId } }', expect: ok() },
  'Query.app': { query: 'query($app: UUID!) { app(appId: $app) { id: appId } }', expect: ok() },
  'Query.availability': {
    query: `query($app: UUID!, $from: DateTime!, $to: DateTime!) { availability(appId: $app, fromUtc: $from, toUtc: $to, durationMinutes: 30) { slots { startUtc } } }`,
    variables: () => ({ from: day(4, 0), to: day(5, 0) }),
    expect: ok(),
  },
  'Query.availabilityExplained': {
    query: `query($app: UUID!, $from: DateTime!, $to: DateTime!) { availabilityExplained(appId: $app, fromUtc: $from, toUtc: $to, durationMinutes: 30) { __typename } }`,
    variables: () => ({ from: day(4, 0), to: day(5, 0) }),
    expect: ok(),
  },
  'Query.campaignTags': { query: 'query($app: UUID!) { campaignTags(appId: $app) }', expect: ok() },
  'Query.campaigns': { query: 'query($app: UUID!) { campaigns(appId: $app) { limit } }', expect: ok() },
  'Query.dailyMetrics': { query: 'query($app: UUID!) { dailyMetrics(appId: $app) { date } }', expect: ok() },
  'Query.events': { query: 'query($app: UUID!) { events(appId: $app) { nodes { eventId } } }', expect: ok() },
  'Query.message': { query: 'query($app: UUID!, $id: String!) { message(appId: $app, id: $id) { messageId } }', variables: () => ({ id: f.sent }), expect: ok() },
  'Query.messages': { query: 'query($app: UUID!) { messages(appId: $app) { limit } }', expect: ok() },
  'Query.scheduledCall': { query: 'query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { id: callId } }', variables: () => ({ id: f.call }), expect: ok() },
  'Query.scheduledCalls': { query: 'query($app: UUID!) { scheduledCalls(appId: $app) { limit } }', expect: ok() },
  'Query.sentMessage': { query: 'query($app: UUID!, $id: String!) { sentMessage(appId: $app, messageId: $id) { messageId } }', variables: () => ({ id: f.sent }), expect: ok() },
  'Query.summaryMetrics': { query: 'query($app: UUID!) { summaryMetrics(appId: $app) { sent } }', expect: ok() },
  'Query.tagStats': { query: 'query($app: UUID!) { tagStats(appId: $app, tag: "vip") { sent } }', expect: ok() },
  'Query.template': {
    query: 'query($app: UUID!, $id: UUID!) { template(appId: $app, templateId: $id) { id: templateId } }',
    variables: () => ({ id: template(1).id }),
    expect: ok(),
  },
  'Query.templates': { query: 'query($app: UUID!) { templates(appId: $app) { limit } }', expect: ok() },
  // A Node's scope is its type's, checked as it loads: App needs none; a type's scope is in node.security.test.ts.
  'Query.node': { query: 'query($id: ID!) { node(id: $id) { id } }', variables: () => ({ id: Buffer.from(`App:${owner.appId}`).toString('base64') }), expect: ok(), foreign: ok() },
  'Query.nodes': { query: 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', variables: () => ({ ids: [Buffer.from(`App:${owner.appId}`).toString('base64')] }), expect: ok(), foreign: ok() },
  'Query.videoCall': { query: 'query($app: UUID!, $id: UUID!) { videoCall(appId: $app, callId: $id) { callId } }', variables: () => ({ id: f.video }), expect: ok() },
  'Query.videoCallLookup': {
    query: 'query($id: UUID!) { videoCallLookup(callId: $id) { callId } }',
    variables: () => ({ id: f.video }),
    expect: ok(),
    foreign: refused(200, 'not_found'),
  },
  'Query.videoCalls': { query: 'query($app: UUID!) { videoCalls(appId: $app) { pageInfo { hasNextPage } } }', expect: ok() },
  'Query.viewer': { query: '{ viewer { clientId } }', expect: ok(), foreign: ok() },
  'Query.webhookDeliveries': { query: 'query($app: UUID!) { webhookDeliveries(appId: $app) { pageInfo { hasNextPage } } }', expect: ok() },
  'Query.webhookSubscriptions': { query: 'query($app: UUID!) { webhookSubscriptions(appId: $app) { id: subscriptionId } }', expect: ok() },
  'Mutation.addAvailabilityException': {
    query: 'mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addAvailabilityException(appId: $app, agentId: $id, kind: blocked, startUtc: $from, endUtc: $to) { id: exceptionId } }',
    variables: () => ({ id: f.agent, from: day(10, 7), to: day(10, 8) }),
    expect: ok(),
  },
  'Mutation.addDndWindow': {
    query: 'mutation($app: UUID!, $id: UUID!, $from: DateTime!, $to: DateTime!) { addDndWindow(appId: $app, agentId: $id, startUtc: $from, endUtc: $to) { id: windowId } }',
    variables: () => ({ id: f.agent, from: day(10, 9), to: day(10, 10) }),
    expect: ok(),
  },
  'Mutation.cancelScheduledCall': {
    query: 'mutation($app: UUID!, $id: UUID!) { cancelScheduledCall(appId: $app, id: $id, reason: "Guest asked") { id: callId } }',
    variables: () => ({ id: f.callToCancel }),
    expect: ok(),
  },
  'Mutation.createScheduledCall': {
    query: 'mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { id: callId } }',
    variables: () => ({ input: booking(15) }),
    expect: ok(),
  },
  'Mutation.createVideoCall': {
    query: 'mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }',
    variables: () => ({ cc: contactcenter }),
    expect: ok(),
  },
  'Mutation.createWebhookSubscription': {
    query: 'mutation($app: UUID!) { createWebhookSubscription(appId: $app, url: "http://127.0.0.1:9/y", eventTypes: [scheduled_cancelled]) { secret } }',
    expect: ok(),
  },
  'Mutation.deleteAgent': { query: 'mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id: agentId } }', variables: () => ({ id: f.agentToDelete }), expect: ok() },
  'Mutation.deleteWebhookSubscription': {
    query: 'mutation($app: UUID!, $id: UUID!) { deleteWebhookSubscription(appId: $app, id: $id) { id: subscriptionId } }',
    variables: () => ({ id: f.webhookToDelete }),
    expect: ok(),
  },
  'Mutation.ingestInboundEvent': {
    query: 'mutation($app: UUID!, $event: JSON!) { ingestInboundEvent(appId: $app, event: $event) { applied } }',
    variables: () => ({ event: { type: 'message', id: `wamid.matrix.${randomUUID()}`, from: phone, text: 'again' } }),
    expect: ok(),
  },
  'Mutation.recordScheduledCallOutcome': {
    query: 'mutation($app: UUID!, $id: UUID!) { recordScheduledCallOutcome(appId: $app, id: $id, outcome: completed) { id: callId } }',
    variables: () => ({ id: f.callForOutcome }),
    // A booking cannot be made in the past, and an outcome waits for the call to start.
    expect: refused(200, 'conflict'),
  },
  'Mutation.startScheduledCallVideo': {
    query: 'mutation($app: UUID!, $id: UUID!, $cc: VideoContactCenterInput!) { startScheduledCallVideo(appId: $app, callId: $id, input: { presetId: "p", contactcenter: $cc }) { callId } }',
    variables: () => ({ id: f.callForVideo, cc: contactcenter }),
    expect: ok(),
  },
  'Mutation.recordVideoCallEnded': { query: 'mutation($app: UUID!, $id: UUID!) { recordVideoCallEnded(appId: $app, callId: $id) { callId } }', variables: () => ({ id: f.videoEnd }), expect: ok() },
  'Mutation.recordVideoParticipantJoined': {
    query: 'mutation($app: UUID!, $id: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $id, providerParticipantId: "p2", role: participant, name: "Bo") { callId } }',
    variables: () => ({ id: f.videoJoin }),
    expect: ok(),
  },
  'Mutation.recordVideoParticipantLeft': {
    query: 'mutation($app: UUID!, $id: UUID!) { recordVideoParticipantLeft(appId: $app, callId: $id, providerParticipantId: "p1") { callId } }',
    variables: () => ({ id: f.videoLeave }),
    expect: ok(),
  },
  'Mutation.recordVideoRecordingStatus': {
    query: 'mutation($app: UUID!, $id: UUID!) { recordVideoRecordingStatus(appId: $app, callId: $id, providerArchiveId: "a1", status: processing) { callId } }',
    variables: () => ({ id: f.videoRecording }),
    expect: ok(),
  },
  'Mutation.removeAvailabilityException': {
    query: 'mutation($app: UUID!, $id: UUID!) { removeAvailabilityException(appId: $app, id: $id) { id: exceptionId } }',
    variables: () => ({ id: f.exception }),
    expect: ok(),
  },
  'Mutation.removeDndWindow': { query: 'mutation($app: UUID!, $id: UUID!) { removeDndWindow(appId: $app, id: $id) { id: windowId } }', variables: () => ({ id: f.dnd }), expect: ok() },
  'Mutation.retryWebhookDelivery': {
    query: 'mutation($app: UUID!, $id: UUID!) { retryWebhookDelivery(appId: $app, id: $id) { id: deliveryId } }',
    // No delivery exists without a receiver: an unknown id is the field's own not_found.
    variables: () => ({ id: unknownId }),
    expect: refused(200, 'not_found'),
  },
  'Mutation.rotateWebhookSecret': {
    query: 'mutation($app: UUID!, $id: UUID!) { rotateWebhookSecret(appId: $app, id: $id) { secret } }',
    variables: () => ({ id: f.webhookToRotate }),
    expect: ok(),
  },
  'Mutation.pingWebhookSubscription': {
    query: 'mutation($app: UUID!, $id: UUID!) { pingWebhookSubscription(appId: $app, id: $id) { id: deliveryId } }',
    variables: () => ({ id: f.webhookToPing }),
    expect: ok(),
  },
  'Mutation.revokeToken': { query: 'mutation { revokeToken(token: "not-a-token-of-anyone") }', expect: ok(), foreign: ok() },
  'Mutation.saveAgent': { query: 'mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "New", timezone: "UTC" }) { id: agentId } }', expect: ok() },
  'Mutation.sendFlowMessage': {
    query: 'mutation($app: UUID!, $input: FlowMessageInput!) { sendFlowMessage(appId: $app, input: $input) { message { id: messageId } } }',
    variables: () => ({
      input: flowMessage(),
    }),
    expect: ok(),
  },
  'Mutation.sendMessage': { query: 'mutation($app: UUID!, $m: JSON!) { sendMessage(appId: $app, message: $m) { message { id: messageId } } }', variables: () => ({ m: flowMessage() }), expect: ok() },
  'Mutation.sendProductListMessage': {
    query: 'mutation($app: UUID!, $input: ProductListMessageInput!) { sendProductListMessage(appId: $app, input: $input) { message { id: messageId } } }',
    variables: () => ({
      input: {
        to: phone,
        type: 'interactive',
        interactive: {
          type: 'product_list',
          header: { type: 'text', text: 'Picks' },
          body: { text: 'Have a look.' },
          action: { catalog_id: 'cat-matrix', sections: [{ title: 'S', product_items: [{ product_retailer_id: 'p1' }] }] },
        },
      },
    }),
    expect: ok(),
  },
  'Mutation.sendTemplateMessage': {
    query: 'mutation($app: UUID!, $input: TemplateMessageInput!) { sendTemplateMessage(appId: $app, input: $input) { message { id: messageId } } }',
    variables: () => ({ input: { to: phone, type: 'template', template: { name: template(1).name, language: 'en_US', parameters: ['Ana', '42'] } } }),
    expect: ok(),
  },
  'Mutation.setAgentBookingPolicy': {
    query: 'mutation($app: UUID!, $id: UUID!) { setAgentBookingPolicy(appId: $app, agentId: $id, input: { maxCallsPerDay: 500 }) { id: agentId } }',
    variables: () => ({ id: f.agent }),
    expect: ok(),
  },
  'Mutation.setBookingPolicy': { query: 'mutation($app: UUID!) { setBookingPolicy(appId: $app, input: {}) { assignment } }', expect: ok() },
  'Mutation.setAgentWorkingHours': {
    query: 'mutation($app: UUID!, $id: UUID!, $hours: JSON!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: $hours) { id: agentId } }',
    variables: () => ({ id: f.agent, hours: { mon: [['06:00', '20:00']] } }),
    expect: ok(),
  },
  'Mutation.setWebhookSubscriptionStatus': {
    query: 'mutation($app: UUID!, $id: UUID!) { setWebhookSubscriptionStatus(appId: $app, id: $id, active: false) { id: subscriptionId } }',
    variables: () => ({ id: f.webhook }),
    expect: ok(),
  },
  'Mutation.updateScheduledCall': {
    query: 'mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: { guestIntakeNotes: "Mornings" }) { id: callId } }',
    variables: () => ({ id: f.callToUpdate }),
    expect: ok(),
  },
  'Subscription.events': { query: 'subscription($app: UUID!) { events(appId: $app) { eventId } }', expect: ok() },
  'Subscription.scheduledCallEvents': { query: 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId } }', expect: ok() },
  'Subscription.scheduledCallTimeline': {
    query: 'subscription($app: UUID!, $id: UUID!) { scheduledCallTimeline(appId: $app, callId: $id) { id } }',
    variables: () => ({ id: f.call }),
    expect: ok(),
  },
};

const rootFields = [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!].flatMap((root) =>
  Object.values(root.getFields()).map((field) => ({ key: `${root.name}.${field.name}`, scope: requiredScope(field) })),
);
const fieldScope = (key: string) => rootFields.find((r) => r.key === key)?.scope;

/** The first event of a subscription, or undefined when none comes in `ms` (it is running). */
async function firstEvent(query: string, variables: Record<string, unknown>, token: string, ms = 250) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/graphql/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const timer = setTimeout(() => controller.abort(), ms);
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const data = /data: (.*)\n/.exec(text);
      if (data) return { status: res.status, event: JSON.parse(data[1]!) };
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: res.status, event: undefined };
}

/** One field as { status, code } (code: the first error's extensions.code, if any). */
async function runField(key: string, token: string, appId: string): Promise<{ status: number; code?: string; body: unknown }> {
  const c = gqlCases[key]!;
  const variables = { app: appId, ...(c.variables?.() ?? {}) };
  const used = Object.fromEntries(Object.entries(variables).filter(([name]) => c.query.includes(`$${name}`)));
  if (key.startsWith('Subscription.')) {
    const { status, event } = await firstEvent(c.query, used, token);
    return { status, code: event?.errors?.[0]?.extensions?.code, body: event };
  }
  const res = await gql(server.url, token, c.query, used);
  return { status: res.status, code: res.body.errors?.[0]?.extensions?.code, body: res.body };
}

const gqlMatrix = Object.keys(gqlCases).flatMap((key) =>
  columns.map((column) => {
    const needed = fieldScope(key);
    const granted = needed === undefined || column === needed;
    const e = gqlCases[key]!.expect;
    return { name: `${key} with ${column} → ${granted ? (e.code ?? 'data') : 'forbidden'}`, key, column, granted };
  }),
);

describe('GraphQL: the schema and the matrix name the same root fields', () => {
  it('every Query, Mutation and Subscription field has a case, and every case a field', () => {
    expect(Object.keys(gqlCases).sort()).toEqual(rootFields.map((r) => r.key).sort());
  });
  it('the only fields without a scope are the two that describe the caller and node/nodes (whose types have theirs)', () => {
    expect(rootFields.filter((r) => r.scope === undefined).map((r) => r.key)).toEqual(['Query.app', 'Query.node', 'Query.nodes', 'Query.viewer']);
  });
});

describe('GraphQL: one scope per token', () => {
  const ordered = [...gqlMatrix.filter((c) => !c.granted), ...gqlMatrix.filter((c) => c.granted)];
  it.each(ordered)('$name', async ({ key, column, granted }) => {
    const res = await runField(key, tokens.get(column)!, owner.appId);
    // GraphQL over HTTP: 200 once the operation executed, the refusal in errors[].extensions.code;
    // a stream has answered 200 before its first event says why it ends.
    if (!granted) {
      expect(res.code, JSON.stringify(res.body)).toBe('forbidden');
      expect(res.status).toBe(200);
      return;
    }
    const expected = gqlCases[key]!.expect;
    expect(res.code, JSON.stringify(res.body)).toBe(expected.code);
    expect(res.status).toBe(expected.status);
  });
});

describe('GraphQL: the right scope for another app', () => {
  const cases = Object.keys(gqlCases).map((key) => {
    const foreign = gqlCases[key]!.foreign;
    return { key, name: `${key} with ${fieldScope(key) ?? 'none'} for another app → ${foreign ? (foreign.code ?? 'data') : 'forbidden'}` };
  });
  it.each(cases)('$name', async ({ key }) => {
    const res = await runField(key, strangerTokens.get(fieldScope(key) ?? 'none')!, owner.appId);
    const foreign = gqlCases[key]!.foreign ?? refused(200, 'forbidden');
    expect(res.code, JSON.stringify(res.body)).toBe(foreign.code);
    expect(res.status).toBe(foreign.status);
  });
});
