import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/time/clock.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { flowBody, newPhone, send, userWrote } from '../sends/fixtures.js';
import { booking, futureDay, keyedTenant, keysOf, SUBSCRIBE, SUBSCRIPTIONS } from './fixtures.js';

const { server } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1' } });

describe('Idempotency-Key on REST writes: a retry gets the first answer and runs nothing', () => {
  it('POST scheduled-calls twice with one key books once; the replay is the first answer, marked replayed', async () => {
    const t = await keyedTenant(server);
    const body = booking(futureDay(30, 10), { guestName: 'Once Only' });
    const first = await t.create(body, 'book-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await t.create(body, 'book-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.body).toEqual(first.body);
    // The request's own headers are the retry's, not the stored ones.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect((await t.calls()).map((c) => c.guest_name)).toEqual(['Once Only']);
    // Without a key the same body is a new request (here: the slot of agent 1 is taken, agent 2 gets it).
    expect((await t.create(body)).status).toBe(201);
    expect(await t.calls()).toHaveLength(2);
  });

  it('PATCH replays its first answer and appends one timeline event', async () => {
    const t = await keyedTenant(server);
    const id = (await t.create(booking(futureDay(31, 10)))).body.data.call.id as string;
    const to = futureDay(31, 14).toISOString();
    const first = await t.patch(id, { scheduledAtUtc: to, reason: 'asked' }, 'move-1');
    expect(first.status).toBe(200);
    const again = await t.patch(id, { reason: 'asked', scheduledAtUtc: to }, 'move-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const events = (await t.a.get(id)).body.data.events as { event_type: string }[];
    expect(events.filter((e) => e.event_type === 'rescheduled')).toHaveLength(1);
  });

  it('DELETE replays the cancellation and appends one cancelled event', async () => {
    const t = await keyedTenant(server);
    const id = (await t.create(booking(futureDay(32, 10)))).body.data.call.id as string;
    const first = await t.cancel(id, { reason: 'no longer needed' }, 'cancel-1');
    expect(first.status).toBe(200);
    expect(first.body.data.call.status).toBe('cancelled');
    const again = await t.cancel(id, { reason: 'no longer needed' }, 'cancel-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const events = (await t.a.get(id)).body.data.events as { event_type: string }[];
    expect(events.filter((e) => e.event_type === 'cancelled')).toHaveLength(1);
  });

  it('sends keep their key: a replay of POST /messaging/{appId}/messages sends nothing more', async () => {
    const tenant = await server.tenant();
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const first = await send(server, tenant, body, { 'Idempotency-Key': 'send-1' });
    expect(first.status).toBe(202);
    const again = await send(server, tenant, body, { 'Idempotency-Key': 'send-1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const sent = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}&direction=outbound`, { token: tenant.accessToken });
    expect(sent.body.data).toHaveLength(1);
  });

  it('POST /messaging/{appId}/inbound replays its first answer; another body with the key is 422', async () => {
    const tenant = await server.tenant();
    const url = `${server.url}/api/v1/messaging/${tenant.appId}/inbound`;
    const json = { type: 'message', id: `wamid.keyed.${Date.now()}`, from: newPhone(), text: 'hi' };
    const first = await request(url, { token: tenant.accessToken, json, headers: { 'Idempotency-Key': 'inbound-1' } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await request(url, { token: tenant.accessToken, json: { text: 'hi', from: json.from, id: json.id, type: 'message' }, headers: { 'Idempotency-Key': 'inbound-1' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await request(url, { token: tenant.accessToken, json: { ...json, text: 'another' }, headers: { 'Idempotency-Key': 'inbound-1' } });
    expect(other.status).toBe(422);
    expect(other.body.error.type).toBe('idempotency_key_reused');
  });

  it('a key is kept once the request ran: its row is completed with the answer', async () => {
    const t = await keyedTenant(server);
    await t.create(booking(futureDay(33, 10)), 'kept-1');
    const rows = await keysOf(server, t.tenant.appId);
    expect(rows.map((r) => [r.key, r.state, r.clientId])).toEqual([['kept-1', 'completed', t.tenant.clientId]]);
    expect((rows[0]!.response as { status: number }).status).toBe(201);
  });
});

describe('Idempotency-Key on GraphQL mutations (the header on POST /graphql)', () => {
  it('createWebhookSubscription with a key creates one subscription; the replay returns the same id and secret', async () => {
    const tenant = await server.tenant();
    const variables = { appId: tenant.appId, url: 'http://127.0.0.1:9/hook', eventTypes: ['scheduled_cancelled'] };
    const first = await gql(server.url, tenant.accessToken, SUBSCRIBE, variables, { 'Idempotency-Key': 'hook-1' });
    expect(first.body.errors).toBeUndefined();
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await gql(server.url, tenant.accessToken, SUBSCRIBE, variables, { 'Idempotency-Key': 'hook-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = await gql(server.url, tenant.accessToken, SUBSCRIPTIONS, { appId: tenant.appId });
    expect(list.body.data.webhookSubscriptions).toEqual([{ id: first.body.data.createWebhookSubscription.subscription.id }]);
  });

  it('createScheduledCall through GraphQL books once with a key', async () => {
    const t = await keyedTenant(server);
    const mutation = `mutation($appId: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $appId, input: $input) { callId } }`;
    const variables = { appId: t.tenant.appId, input: booking(futureDay(34, 10)) };
    const first = await gql(server.url, t.tenant.accessToken, mutation, variables, { 'Idempotency-Key': 'gql-book-1' });
    const again = await gql(server.url, t.tenant.accessToken, mutation, variables, { 'Idempotency-Key': 'gql-book-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await t.calls()).toHaveLength(1);
  });
});

describe('Idempotency-Key on the video mutations', () => {
  it('createVideoCall and a provider event run once with a key; the replays are the first answers', async () => {
    const tenant = await server.tenant();
    const cc = { conversationId: 'c', ccHostOrigin: 'https://cc.example', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
    const create = `mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }`;
    const first = await gql(server.url, tenant.accessToken, create, { app: tenant.appId, cc }, { 'Idempotency-Key': 'video-1' });
    expect(first.body.errors).toBeUndefined();
    const again = await gql(server.url, tenant.accessToken, create, { app: tenant.appId, cc }, { 'Idempotency-Key': 'video-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const call = first.body.data.createVideoCall.callId;
    // Without a key a second join of a connected participant is 409; with the key it is the replay.
    const join = `mutation($app: UUID!, $call: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "g-1", role: participant, name: "G") { callId status } }`;
    const joined = await gql(server.url, tenant.accessToken, join, { app: tenant.appId, call }, { 'Idempotency-Key': 'join-1' });
    expect(joined.body.errors).toBeUndefined();
    const rejoined = await gql(server.url, tenant.accessToken, join, { app: tenant.appId, call }, { 'Idempotency-Key': 'join-1' });
    expect(rejoined.headers.get('idempotent-replayed')).toBe('true');
    expect(rejoined.body).toEqual(joined.body);
    const events = await request(`${server.url}/api/v1/events/${tenant.appId}?types=video_call.*`, { token: tenant.accessToken });
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['video_call.created', 'video_call.participant_joined']);
  });
});

describe('a replay carries the first answer as it was, meta.timestamp included', () => {
  const clock = fixedClock(new Date());
  const { server: own } = useServer({ clock });

  it('POST /oauth/revoke replayed a minute later keeps the first meta.timestamp', async () => {
    const tenant = await own.tenant();
    const victim = await tenant.token();
    const revoke = () => request(`${own.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: victim }, headers: { 'Idempotency-Key': 'revoke-1' } });
    const first = await revoke();
    expect(first.status).toBe(200);
    clock.advance(60_000);
    const again = await revoke();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.meta.timestamp).toBe(first.body.meta.timestamp);
    expect(again.body).toEqual(first.body);
    // A new key is a new request, answered at the clock's time.
    const fresh = await request(`${own.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: victim }, headers: { 'Idempotency-Key': 'revoke-2' } });
    expect(fresh.body.meta.timestamp).toBe(clock.now().toISOString());
    expect(fresh.body.meta.timestamp).not.toBe(first.body.meta.timestamp);
  });
});

describe('OpenAPI states Idempotency-Key on every write', () => {
  it('each REST write operation takes the header and its success answers may be replayed', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body;
    const writes = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      ['post', 'patch', 'delete'].filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] })),
    );
    const keyed = writes.filter(({ op }) => (op.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key' && p.in === 'header'));
    // Every write but the token endpoints, the standard revoke (RFC 7009: repeating it answers the
    // same) and the campaign search (a read sent as POST). /token and /revoke sit under /oauth.
    expect(writes.filter((w) => !keyed.includes(w)).map((w) => `${w.method} ${w.path}`).sort()).toEqual([
      'post /analytics/{appId}/campaigns/search',
      'post /oauth/token',
      'post /revoke',
      'post /token',
    ]);
    for (const { path, op } of keyed) {
      const success = Object.entries(op.responses as Record<string, any>).filter(([status]) => status.startsWith('2'));
      for (const [, response] of success) expect(response.headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
      // The send path answers a reused key with 409 conflict, as it did before every write took a key.
      const reusedTypes = op.responses['422']?.content['application/json'].schema.allOf[1].properties.error.properties.type.enum ?? [];
      if (path === '/messaging/{appId}/messages') expect(reusedTypes).not.toContain('idempotency_key_reused');
      else expect(reusedTypes).toContain('idempotency_key_reused');
      expect(op.responses['409'].content['application/json'].schema.allOf[1].properties.error.properties.type.enum).toContain('conflict');
    }
    expect(keyed.map((w) => `${w.method} ${w.path}`)).toContain('post /video/{appId}/scheduled-calls');
  });
});
