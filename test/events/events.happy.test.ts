import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventId } from '../../src/events/ids.js';
import { pruneEvents } from '../../src/events/prune.js';
import { gql, request } from '../helpers/http.js';
import { videoCallLifecycle } from '../video/fixtures.js';
import { useServer } from '../helpers/use-server.js';
import { booker, seedAgents, settle, subscribe } from '../realtime/timeline.fixtures.js';

// Every change writes exactly one event, visible in the pull API and the events subscription;
// tenancy, scopes, retention and atomicity of the log.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
const book = booker(server);
const EVENTS = `subscription($app: UUID!, $types: [String!], $after: UUID) { events(appId: $app, types: $types, after: $after) { id: eventId globalId: id type actorType resource } }`;

const pull = (query: string, token = tenant.accessToken, appId = tenant.appId) => request(`${server.url}/api/v1/events/${appId}${query}`, { token });

async function videoGql(query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
  return res.body as { data?: Record<string, any>; errors?: { extensions?: { code?: string } }[] };
}

/** The app's newest event id, to pull only what follows. */
async function lastEventId(): Promise<string | undefined> {
  let after: string | undefined;
  for (;;) {
    const res = await pull(`?limit=200${after ? `&after=${after}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const last = res.body.data.at(-1)?.id as string | undefined;
    if (!res.body.pagination.hasMore) return last ?? after;
    after = last;
  }
}

describe('the app event log', () => {
  it('each change writes exactly one event, in the pull API and the subscription, in order', async () => {
    const start = await lastEventId();
    const stream = subscribe(server.url, tenant.accessToken, EVENTS, { app: tenant.appId });
    await settle();
    const callId = await book(tenant, 3, 10);
    const videoId = await videoCallLifecycle(async (query, variables) => (await videoGql(query, variables)).data!);
    const inbound = await request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, {
      token: tenant.accessToken,
      json: { type: 'message', id: `wamid.events.${Date.now()}`, from: '447700900123', to: '447700900000', text: 'hi' },
    });
    expect(inbound.status, JSON.stringify(inbound.body)).toBe(200);

    const expected = [
      'scheduled_call.created',
      'video_call.created',
      'video_call.participant_joined',
      'video_call.participant_left',
      'recording.updated',
      'video_call.ended',
      'message.received',
    ];
    const page = await pull(`?limit=50${start ? `&after=${start}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((e: { type: string }) => e.type)).toEqual(expected);
    const [booked, video, joined] = page.body.data;
    expect(booked.resource).toMatchObject({ id: callId, status: 'scheduled' });
    expect(booked.actor_type).toBe('client');
    expect(video.resource).toMatchObject({ id: videoId, status: 'created' });
    expect(joined.resource).toMatchObject({ video_call_id: videoId, provider_participant_id: 'g-1', left_at: null });
    expect(page.body.pagination).toEqual({ limit: 50, hasMore: false, nextCursor: null });

    await stream.until(expected.length);
    await settle();
    const streamed = stream.received.map((r) => r.data!.events!);
    expect(streamed.map((e) => e.id)).toEqual(page.body.data.map((e: { id: string }) => e.id));
    // Live events carry the global id node(id:) reads them back by.
    for (const e of streamed) expect(Buffer.from((e as unknown as { globalId: string }).globalId, 'base64').toString('utf8')).toBe(`AppEvent:${tenant.appId}:${e.id}`);
    stream.close();

    // A wildcard filter, and keyset pages of one.
    const videoOnly = await pull(`?types=video_call.*,recording.updated${start ? `&after=${start}` : ''}`);
    expect(videoOnly.body.data.map((e: { type: string }) => e.type)).toEqual(expected.slice(1, 6));
    const first = await pull(`?limit=1&types=video_call.*${start ? `&after=${start}` : ''}`);
    expect(first.body.pagination).toMatchObject({ limit: 1, hasMore: true, nextCursor: first.body.data[0].id });
    const second = await pull(`?limit=1&types=video_call.*&after=${first.body.pagination.nextCursor}`);
    expect(second.body.data[0].type).toBe('video_call.participant_joined');
  });

  it('the subscription filters by type and resumes after an event with nothing missed or repeated', async () => {
    const start = await lastEventId();
    const callId = await book(tenant, 4, 10);
    const patched = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls/${callId}`, { method: 'PATCH', token: tenant.accessToken, json: { guestName: 'Renamed' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const stream = subscribe(server.url, tenant.accessToken, EVENTS, { app: tenant.appId, types: ['scheduled_call.*'], ...(start && { after: start }) });
    await stream.until(2);
    await request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, {
      token: tenant.accessToken,
      json: { type: 'message', id: `wamid.filtered.${Date.now()}`, from: '447700900124', text: 'not selected' },
    });
    await book(tenant, 5, 10);
    await stream.until(3);
    await settle();
    expect(stream.received.map((r) => (r.data!.events as unknown as { type: string }).type)).toEqual(['scheduled_call.created', 'scheduled_call.updated', 'scheduled_call.created']);
    stream.close();
  });

  it('a late notification of an event the reader already has is not delivered again', async () => {
    const callId = await book(tenant, 6, 10);
    await settle();
    const last = (await lastEventId())!;
    const stream = subscribe(server.url, tenant.accessToken, EVENTS, { app: tenant.appId, after: last });
    await settle();
    // Re-announce the resume point's event, as a notification delayed past the subscribe would arrive.
    const [row] = await server.runtime.database.db.query.appEvents.findMany({ where: (e, { eq }) => eq(e.id, last) });
    await server.runtime.database.db.transaction(async (tx) => {
      const { announce } = await import('../../src/realtime/log-bus.js');
      const { eventLog } = await import('../../src/events/log.js');
      await announce(eventLog, tx, [row!]);
    });
    await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls/${callId}`, { method: 'DELETE', token: tenant.accessToken });
    await stream.until(1);
    await settle();
    expect(stream.received.map((r) => (r.data!.events as unknown as { type: string }).type)).toEqual(['scheduled_call.cancelled']);
    stream.close();
  });

  it('a refused write leaves no event', async () => {
    const start = await lastEventId();
    const created = await videoGql('mutation($app: UUID!, $cc: VideoContactCenterInput!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: $cc }) { callId } }', { cc: contactcenter });
    const call = { call: created.data!.createVideoCall.callId };
    await videoGql('mutation($app: UUID!, $call: UUID!) { recordVideoCallEnded(appId: $app, callId: $call) { callId } }', call);
    const again = await videoGql('mutation($app: UUID!, $call: UUID!) { recordVideoCallEnded(appId: $app, callId: $call) { callId } }', call);
    expect(again.errors?.[0]?.extensions?.code).toBe('conflict');
    const late = await videoGql('mutation($app: UUID!, $call: UUID!) { recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "late", role: participant, name: "L") { callId } }', call);
    expect(late.errors?.[0]?.extensions?.code).toBe('conflict');
    const page = await pull(`?limit=50&after=${start}`);
    expect(page.body.data.map((e: { type: string }) => e.type)).toEqual(['video_call.created', 'video_call.ended']);
  });

  it('refuses an unknown pattern, a foreign event id, and an id older than the retention (cursor_expired)', async () => {
    const bad = await pull('?types=message.nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ field: 'types.0', code: 'invalid_value' });
    const foreign = await pull(`?after=${eventId(new Date())}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0]).toMatchObject({ field: 'after', code: 'invalid_value' });
    const old = eventId(new Date(Date.now() - 31 * 86_400_000));
    const expired = await pull(`?after=${old}`);
    expect(expired.status).toBe(400);
    expect(expired.body.error.details[0]).toMatchObject({ field: 'after', code: 'cursor_expired' });
    const stream = subscribe(server.url, tenant.accessToken, EVENTS, { app: tenant.appId, after: old });
    await stream.done;
    expect(stream.received[0]?.errors?.[0]?.extensions?.code ?? (stream.failure as any)?.[0]?.extensions?.code).toBeDefined();
  });
});

describe('tenancy and scopes', () => {
  it("another app's token sees nothing of this app, and a token without events:read is refused", async () => {
    const other = await server.tenant();
    const denied = await pull('', other.accessToken);
    expect(denied.status).toBe(403);
    const theirs = await pull('', other.accessToken, other.appId);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    const mine = (await lastEventId())!;
    const foreignCursor = await pull(`?after=${mine}`, other.accessToken, other.appId);
    expect(foreignCursor.status).toBe(400);

    const noScope = await server.tenant({ scopes: ['scheduling:read', 'messages:read'] });
    expect((await pull('', noScope.accessToken, noScope.appId)).status).toBe(403);
    const refused = subscribe(server.url, noScope.accessToken, EVENTS, { app: noScope.appId });
    await refused.done;
    const crossApp = subscribe(server.url, other.accessToken, EVENTS, { app: tenant.appId });
    await crossApp.done;
    for (const s of [refused, crossApp]) {
      const code = s.received[0]?.errors?.[0]?.extensions?.code ?? (s.failure as any)?.[0]?.extensions?.code;
      expect(code).toBe('forbidden');
    }

    // A stream of the other app carries none of this app's events.
    const watching = subscribe(server.url, other.accessToken, EVENTS, { app: other.appId });
    await settle();
    await book(tenant, 7, 10);
    await settle();
    expect(watching.received).toEqual([]);
    watching.close();
  });
});

describe('retention', () => {
  it('a call keeps its timeline past retention; the list and the events subscription leave those events out', async () => {
    const callId = await book(tenant, 6, 10);
    const old = new Date(Date.now() - 40 * 86_400_000);
    const id = eventId(old);
    await server.runtime.database.db.execute(sql`insert into app_events (id, app_id, type, actor_type, actor_id, resource, subject_id, details, occurred_at)
      values (${id}, ${tenant.appId}, 'scheduled_call.updated', 'client', 'old', null, ${callId}, '{"fields":["guest_name"]}'::jsonb, ${old.toISOString()})`);
    await pruneEvents(server.runtime.database.db, new Date(Date.now() - 30 * 86_400_000));
    const timeline = await gql(server.url, tenant.accessToken, 'query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { events { eventId eventType payload } } }', { app: tenant.appId, id: callId });
    expect(timeline.body.data.scheduledCall.events).toEqual([
      expect.objectContaining({ eventType: 'created' }),
      { eventId: id, eventType: 'updated', payload: { fields: ['guest_name'] } },
    ]);
    const listed: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await pull(`?limit=200${after ? `&after=${after}` : ''}`);
      listed.push(...page.body.data.map((e: { id: string }) => e.id));
      if (!page.body.pagination.hasMore) break;
      after = listed.at(-1);
    }
    expect(listed).not.toContain(id);
    const expired = await pull(`?after=${id}`);
    expect(expired.body.error.details[0]).toMatchObject({ field: 'after', code: 'cursor_expired' });
  });

  it('the prune job deletes events older than the cutoff, oldest first, in batches, but not the timelines of calls', async () => {
    const listed = (await pull('?limit=200')).body.data as { id: string; type: string }[];
    // A call's events make up its timeline, kept for the call's life.
    const kept = listed.filter((e) => e.type.startsWith('scheduled_call.'));
    const before = listed.length - kept.length;
    expect(before).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    const deleted = await pruneEvents(server.runtime.database.db, new Date(Date.now() + 60_000));
    expect(deleted).toBeGreaterThanOrEqual(before);
    expect((await pull('?limit=200')).body.data.map((e: { id: string }) => e.id)).toEqual(kept.map((e) => e.id));
  });
});
