import { beforeAll, describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { MAX_CALL_SESSIONS } from '../../src/video/service.js';
import { CALL, callIdOf, codeOf, contactcenter, importRecords, iso, LIST_CALLS, listedCallsTenant, participantIdOf, t0, videoCall, videoMutations } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read', 'scheduling:write'] } });


const q = (query: string, variables: Record<string, unknown> = {}, token = tenant.accessToken) => gql(server.url, token, query, variables);

describe('videoCall', () => {
  it('agrees with the REST lookup field by field', async () => {
    const now = Date.now();
    await importRecords(server, tenant.appId, [
      videoCall(1, {
        status: 'active',
        participants: [
          { id: participantIdOf(1), providerParticipantId: 'p1', role: 'host', name: 'Ada', joinedAt: iso(now - 630_000), leftAt: null },
          { id: participantIdOf(2), providerParticipantId: 'p2', role: 'participant', name: 'Bo', joinedAt: iso(now - 600_000), leftAt: iso(now - 539_000) },
        ],
      }),
    ]);
    const graph = await q(`query($app: UUID!, $call: UUID!) { videoCall(appId: $app, callId: $call) { ${CALL} appId createdAt } }`, {
      app: tenant.appId,
      call: callIdOf(1),
    });
    const rest = await request(`${server.videoUrl}/api/calls/${callIdOf(1)}`, { token: tenant.accessToken });
    expect(graph.status).toBe(200);
    expect(rest.status).toBe(200);
    const { appId, createdAt, ...fields } = graph.body.data.videoCall;
    expect(fields).toEqual(rest.body.data);
    expect(appId).toBe(tenant.appId);
    expect(createdAt).toBe(videoCall(1).createdAt);
    expect(fields.participants.map((p: any) => p.billedMinutes)).toEqual([11, 2]);
    expect(fields.usage.participantMinutes).toBe(13);
  });
});

describe('videoCalls', () => {
  let lister: Tenant;

  beforeAll(async () => {
    lister = await listedCallsTenant(server);
  });

  const list = (variables: Record<string, unknown>) => q(LIST_CALLS, { app: lister.appId, ...variables }, lister.accessToken);

  it('walks every page once, newest first, even while a call is created between pages', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await list({ first: 3, after });
      expect(res.status).toBe(200);
      const page = res.body.data.videoCalls;
      expect(page.limit).toBe(3);
      seen.push(...page.edges.map((e: any) => e.node.callId));
      pages += 1;
      if (pages === 1) {
        const created = await q(`mutation($app: UUID!) { createVideoCall(appId: $app, input: { presetId: "p", contactcenter: { conversationId: "c", ccHostOrigin: "o", ccTargetEnv: "e", ccLangTag: "en", ccUsePopupAuth: false } }) { callId } }`, { app: lister.appId }, lister.accessToken);
        expect(created.body.errors).toBeUndefined();
      }
      // endCursor is the last edge's on every page, the last one included (Relay).
      expect(page.edges.at(-1).cursor).toBe(page.pageInfo.endCursor);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([104, 103, 106, 105, 102, 101, 100].map(callIdOf));
  });

  it("every edge carries its cursor: continuing after a middle edge's gives the items after it", async () => {
    const all = (await list({ first: 50 })).body.data.videoCalls.edges;
    expect(all.map((e: any) => e.node.callId).slice(-7)).toEqual([104, 103, 106, 105, 102, 101, 100].map(callIdOf));
    expect(all.every((e: any) => typeof e.cursor === 'string')).toBe(true);
    const rest = (await list({ first: 50, after: all.at(-5).cursor })).body.data.videoCalls.edges;
    expect(rest.map((e: any) => e.node.callId)).toEqual([105, 102, 101, 100].map(callIdOf));
    expect((await list({ first: 50, after: all.at(-1).cursor })).body.data.videoCalls.edges).toEqual([]);
  });

  it('filters by status', async () => {
    const res = await list({ first: 50, status: 'ended' });
    expect(res.body.data.videoCalls.edges.map((e: any) => e.node.callId)).toEqual([105, 102].map(callIdOf));
    expect(res.body.data.videoCalls.edges.every((e: any) => e.node.status === 'ended')).toBe(true);
  });

  it('a default page (50) with every field fits the complexity budget', async () => {
    const res = await q(`query($app: UUID!) { videoCalls(appId: $app) { limit nodes { ${CALL} appId createdAt updatedAt } } }`, { app: lister.appId }, lister.accessToken);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.videoCalls.limit).toBe(50);
    expect(res.body.data.videoCalls.nodes.length).toBeGreaterThanOrEqual(7);
  });

  it('loads participants, recordings and usage of a whole page in a constant number of statements (DataLoader)', async () => {
    const statements = async (first: number) => {
      const before = server.runtime.database.queries.count;
      const res = await list({ first, status: 'active' });
      expect(res.status).toBe(200);
      expect(res.body.data.videoCalls.edges).toHaveLength(first);
      expect(res.body.data.videoCalls.edges[0].node.participants).toHaveLength(1);
      expect(res.body.data.videoCalls.edges[0].node.recordings).toHaveLength(1);
      return server.runtime.database.queries.count - before;
    };
    const small = await statements(2);
    const large = await statements(5);
    // Token check, the page, participants, recordings: the same for 2 calls and for 5.
    expect(large).toBe(small);
    expect(large).toBeLessThanOrEqual(4);
  });
});

describe('mutations: create and provider events', () => {
  let callId: string;
  const { create, joined, left, ended, recording } = videoMutations(server, tenant, () => callId);

  it('createVideoCall answers a created call with nulls and empty lists', async () => {
    const res = await create({ presetId: 'one_to_one', guestName: 'Grace', metadata: { crm: 'x-1' }, contactcenter });
    expect(res.body.errors).toBeUndefined();
    const call = res.body.data.createVideoCall;
    callId = call.callId;
    expect(call).toEqual({
      callId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      appId: tenant.appId,
      status: 'created',
      presetId: 'one_to_one',
      title: null,
      description: null,
      metadata: { crm: 'x-1' },
      hostName: null,
      guestName: 'Grace',
      provider: null,
      contactcenter,
      participants: [],
      usage: { participantMinutes: 0 },
      recordings: [],
    });
    const rest = await request(`${server.videoUrl}/api/calls/${callId}`, { token: tenant.accessToken });
    expect(rest.body.data.status).toBe('created');
  });

  it('a created call refuses leaves and recordings (conflict) and stays created', async () => {
    const leave = await left('nobody', t0);
    expect(codeOf(leave)).toBe('conflict');
    expect(leave.status).toBe(200);
    expect(codeOf(await recording('arch-0', 'processing', t0))).toBe('conflict');
    const rest = await request(`${server.videoUrl}/api/calls/${callId}`, { token: tenant.accessToken });
    expect(rest.body.data).toMatchObject({ status: 'created', recordings: [] });
  });

  it('the first join moves created → active; a second join of a connected participant is 409', async () => {
    const host = await joined('host-1', 'host', t0);
    expect(host.body.errors).toBeUndefined();
    expect(host.body.data.recordVideoParticipantJoined.status).toBe('active');
    const guest = await joined('guest-1', 'participant', t0 + 10_000);
    expect(guest.body.data.recordVideoParticipantJoined.participants.map((p: any) => [p.providerParticipantId, p.role, p.leftAt])).toEqual([
      ['host-1', 'host', null],
      ['guest-1', 'participant', null],
    ]);
    const again = await joined('host-1', 'host', t0 + 20_000);
    expect(codeOf(again)).toBe('conflict');
  });

  it('a leave closes the session and keeps the call active; leaving twice is 409; unknown is not_found; before the join is 400', async () => {
    const res = await left('guest-1', t0 + 71_000);
    const call = res.body.data.recordVideoParticipantLeft;
    expect(call.status).toBe('active');
    expect(call.participants[1]).toMatchObject({ providerParticipantId: 'guest-1', leftAt: iso(t0 + 71_000), billedMinutes: 2 });
    expect(codeOf(await left('guest-1', t0 + 80_000))).toBe('conflict');
    expect(codeOf(await left('ghost', t0 + 80_000))).toBe('not_found');
    const early = await left('host-1', t0 - 1_000);
    expect(codeOf(early)).toBe('validation_error');
    expect(early.body.errors?.[0]?.extensions?.details).toEqual([expect.objectContaining({ field: 'at', code: 'invalid_value' })]);
  });

  it('a rejoin is a new session; two mutations in one operation each see the other\'s writes', async () => {
    const res = await q(
      `mutation($app: UUID!, $call: UUID!, $at1: DateTime, $at2: DateTime) {
        a: recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "guest-1", role: participant, name: "G", at: $at1) { participants { id: participantId leftAt } }
        b: recordVideoParticipantLeft(appId: $app, callId: $call, providerParticipantId: "guest-1", at: $at2) { participants { id: participantId providerParticipantId leftAt } }
      }`,
      { app: tenant.appId, call: callId, at1: iso(t0 + 120_000), at2: iso(t0 + 150_000) },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.a.participants).toHaveLength(3);
    expect(res.body.data.a.participants[2].leftAt).toBeNull();
    const sessions = res.body.data.b.participants.filter((p: any) => p.providerParticipantId === 'guest-1');
    expect(sessions).toHaveLength(2);
    expect(sessions[0].id).not.toBe(sessions[1].id);
    expect(sessions[1].leftAt).toBe(iso(t0 + 150_000));
    // And the rejoin is open again for a third session.
    expect((await joined('guest-1', 'participant', t0 + 160_000)).body.errors).toBeUndefined();
  });

  it('recordings: processing → available; final states refuse other moves (409); same status refreshes the url', async () => {
    const processing = await recording('arch-1', 'processing', t0 + 30_000);
    expect(processing.body.data.recordVideoRecordingStatus.recordings).toEqual([
      { providerArchiveId: 'arch-1', url: null, status: 'processing', createdAt: iso(t0 + 30_000), updatedAt: iso(t0 + 30_000) },
    ]);
    const available = await recording('arch-1', 'available', t0 + 90_000, 'https://files.example.com/a1.mp4');
    expect(available.body.data.recordVideoRecordingStatus.recordings[0]).toEqual({
      providerArchiveId: 'arch-1',
      url: 'https://files.example.com/a1.mp4',
      status: 'available',
      createdAt: iso(t0 + 30_000),
      updatedAt: iso(t0 + 90_000),
    });
    expect(codeOf(await recording('arch-1', 'processing', t0 + 100_000))).toBe('conflict');
    expect(codeOf(await recording('arch-1', 'failed', t0 + 100_000))).toBe('conflict');
    const refreshed = await recording('arch-1', 'available', t0 + 110_000, 'https://files.example.com/a1-new.mp4');
    expect(refreshed.body.data.recordVideoRecordingStatus.recordings[0]).toMatchObject({ status: 'available', url: 'https://files.example.com/a1-new.mp4' });
    const failed = await recording('arch-2', 'failed', t0 + 110_000, 'https://files.example.com/a2.mp4');
    expect(failed.body.data.recordVideoRecordingStatus.recordings[1]).toMatchObject({ providerArchiveId: 'arch-2', status: 'failed', url: null });
    expect(codeOf(await recording('arch-2', 'available', t0 + 120_000, 'https://x.example.com/a'))).toBe('conflict');
  });

  it('the end event moves active → ended and closes connected sessions at that instant; nothing moves after it', async () => {
    const res = await ended(t0 + 300_000);
    const call = res.body.data.recordVideoCallEnded;
    expect(call.status).toBe('ended');
    expect(call.participants.map((p: any) => [p.providerParticipantId, p.leftAt, p.billedMinutes])).toEqual([
      ['host-1', iso(t0 + 300_000), 5],
      ['guest-1', iso(t0 + 71_000), 2],
      ['guest-1', iso(t0 + 150_000), 1],
      ['guest-1', iso(t0 + 300_000), 3],
    ]);
    expect(call.usage.participantMinutes).toBe(11);
    expect(codeOf(await ended(t0 + 400_000))).toBe('conflict');
    expect(codeOf(await joined('late', 'participant', t0 + 400_000))).toBe('conflict');
    expect(codeOf(await left('host-1', t0 + 400_000))).toBe('conflict');
    // A recording may finish processing after the call ended.
    expect((await recording('arch-3', 'processing', t0 + 310_000)).body.errors).toBeUndefined();
    expect((await recording('arch-3', 'available', t0 + 900_000, 'https://files.example.com/a3.mp4')).body.errors).toBeUndefined();
    const rest = await request(`${server.videoUrl}/api/calls/${callId}`, { token: tenant.accessToken });
    expect(rest.body.data).toMatchObject({ status: 'ended', usage: { participantMinutes: 11 } });
    expect(rest.body.data.recordings.map((r: any) => r.status)).toEqual(['available', 'failed', 'available']);
  });

  it('a created call can be ended without anyone joining', async () => {
    const fresh = await create({ presetId: 'p', contactcenter });
    callId = fresh.body.data.createVideoCall.callId;
    expect((await ended(t0)).body.data.recordVideoCallEnded).toMatchObject({ status: 'ended', participants: [] });
  });
});

describe('participant sessions of one call', () => {
  it('are kept up to MAX_CALL_SESSIONS: one more join is 409 and changes nothing', async () => {
    const participants = Array.from({ length: MAX_CALL_SESSIONS }, (_, i) => ({
      id: participantIdOf(900_000 + i),
      providerParticipantId: `pp-${i}`,
      role: 'participant',
      name: 'P',
      joinedAt: '2026-03-01T10:00:00.000Z',
      leftAt: '2026-03-01T10:01:00.000Z',
    }));
    const call = videoCall(90, { status: 'active', participants, recordings: [] });
    await importRecords(server, tenant.appId, [call]);
    const { joined } = videoMutations(server, tenant, () => call.callId);
    const refused = await joined('one-more', 'participant', t0);
    expect(codeOf(refused)).toBe('conflict');
    expect(refused.body.errors?.[0]?.message).toContain(`${MAX_CALL_SESSIONS} participant sessions`);
    const lookup = await request(`${server.videoUrl}/api/calls/${call.callId}`, { token: tenant.accessToken });
    expect(lookup.body.data.participants).toHaveLength(MAX_CALL_SESSIONS);
    expect(lookup.body.data.usage.participantMinutes).toBe(MAX_CALL_SESSIONS);
  });
});
