import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import {
  callIdOf,
  contactcenter,
  importRecords,
  iso,
  participantIdOf,
  recordingIdOf,
  specCallFields,
  specParticipantFields,
  specRecordingFields,
  videoCall,
} from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read'] } });

const lookup = (callId: string, token = tenant.accessToken) => request(`${server.videoUrl}/api/calls/${callId}`, { token });

const participant = (n: number, joinedAt: string, leftAt: string | null, extra: Record<string, unknown> = {}) => ({
  id: participantIdOf(n),
  providerParticipantId: `pp-${n}`,
  role: 'participant',
  name: `Guest ${n}`,
  joinedAt,
  leftAt,
  ...extra,
});

describe('GET {video_url}/api/calls/{callId}', () => {
  it('answers { ok: true, data } with every documented field of an imported call', async () => {
    await importRecords(server, tenant.appId, [videoCall(1)]);
    const res = await lookup(callIdOf(1));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(Object.keys(res.body)).toEqual(['ok', 'data']);
    expect(res.body.ok).toBe(true);
    expect(Object.keys(res.body.data)).toEqual(specCallFields);
    expect(res.body.data).toEqual({
      callId: callIdOf(1),
      status: 'ended',
      presetId: 'group_call_host',
      title: 'Call 1',
      description: 'Quarterly review',
      metadata: { ticket: 'T-1', priority: 2 },
      hostName: 'Ada (agent)',
      guestName: 'Grace',
      provider: { name: 'vonage', meetingId: 'mtg-1' },
      contactcenter,
      participants: [
        {
          id: participantIdOf(11),
          providerParticipantId: 'pp-host-1',
          role: 'host',
          name: 'Ada',
          joinedAt: '2026-03-01T10:00:00.000Z',
          leftAt: '2026-03-01T10:01:01.000Z',
          billedMinutes: 2,
        },
      ],
      usage: { participantMinutes: 2 },
      recordings: [
        {
          id: recordingIdOf(11),
          providerArchiveId: 'arch-1',
          url: 'https://files.example.com/arch-1.mp4',
          status: 'available',
          createdAt: '2026-03-01T10:00:05.000Z',
          updatedAt: '2026-03-01T10:05:00.000Z',
        },
      ],
    });
    expect(Object.keys(res.body.data.participants[0])).toEqual(specParticipantFields);
    expect(Object.keys(res.body.data.recordings[0])).toEqual(specRecordingFields);
  });

  it('keeps nullable fields present as null', async () => {
    const bare = videoCall(2, {
      status: 'active',
      participants: [participant(21, '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:30.000Z')],
      recordings: [
        { id: recordingIdOf(21), providerArchiveId: 'arch-21', url: null, status: 'processing', createdAt: '2026-03-01T10:00:05Z', updatedAt: '2026-03-01T10:00:05Z' },
      ],
    }) as Record<string, unknown>;
    for (const field of ['title', 'description', 'metadata', 'hostName', 'guestName', 'provider']) delete bare[field];
    await importRecords(server, tenant.appId, [bare]);
    const { status, body } = await lookup(callIdOf(2));
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(specCallFields);
    for (const field of ['title', 'description', 'metadata', 'hostName', 'guestName', 'provider']) expect(body.data[field]).toBeNull();
    expect(body.data.contactcenter).toEqual(contactcenter);
    expect(body.data.recordings[0]).toMatchObject({ url: null, status: 'processing', createdAt: '2026-03-01T10:00:05.000Z' });
  });

  it('bills whole minutes rounded up: 61 s is 2, 60 s is 1, 59 s is 1, 0 s is 0; usage is their sum', async () => {
    const t0 = Date.UTC(2026, 2, 1, 10, 0, 0);
    const sessions: [number, number][] = [
      [31, 61_000],
      [32, 60_000],
      [33, 59_000],
      [34, 0],
      [35, 3_600_001],
    ];
    await importRecords(server, tenant.appId, [
      videoCall(3, { participants: sessions.map(([n, ms]) => participant(n, iso(t0), iso(t0 + ms))), recordings: [] }),
    ]);
    const { body } = await lookup(callIdOf(3));
    expect(body.data.participants.map((p: any) => [p.id, p.billedMinutes])).toEqual([
      [participantIdOf(31), 2],
      [participantIdOf(32), 1],
      [participantIdOf(33), 1],
      [participantIdOf(34), 0],
      [participantIdOf(35), 61],
    ]);
    expect(body.data.usage).toEqual({ participantMinutes: 65 });
    expect(body.data.recordings).toEqual([]);
  });

  it('bills a connected participant (leftAt null) up to now', async () => {
    const now = Date.now();
    // 5 min 30 s ago: 6 minutes for the next 30 s; 10 s ago: 1 minute; 2 min 30 s connected, then left: 3.
    await importRecords(server, tenant.appId, [
      videoCall(4, {
        status: 'active',
        participants: [
          participant(41, iso(now - 330_000), null, { role: 'host' }),
          participant(42, iso(now - 10_000), null),
          participant(43, iso(now - 600_000), iso(now - 450_000)),
        ],
      }),
    ]);
    const { status, body } = await lookup(callIdOf(4));
    expect(status).toBe(200);
    const byId = Object.fromEntries(body.data.participants.map((p: any) => [p.id, p]));
    expect(byId[participantIdOf(41)]).toMatchObject({ role: 'host', leftAt: null, billedMinutes: 6 });
    expect(byId[participantIdOf(42)]).toMatchObject({ leftAt: null, billedMinutes: 1 });
    expect(byId[participantIdOf(43)]).toMatchObject({ billedMinutes: 3 });
    expect(body.data.usage).toEqual({ participantMinutes: 10 });
    // Join order.
    expect(body.data.participants.map((p: any) => p.id)).toEqual([participantIdOf(43), participantIdOf(41), participantIdOf(42)]);
  });

  it('finds a call of any app in the token (no app in the path)', async () => {
    const second = await server.tenant({ scopes: ['video:read'] });
    await importRecords(server, second.appId, [videoCall(5)]);
    const both = await server.client({ apps: [tenant.appId, second.appId], scopes: ['video:read'] });
    const token = await both.token();
    expect((await lookup(callIdOf(1), token)).body.data.callId).toBe(callIdOf(1));
    expect((await lookup(callIdOf(5), token)).body.data.callId).toBe(callIdOf(5));
  });

  it('accepts an upper-case callId', async () => {
    const res = await lookup(callIdOf(1).toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.data.callId).toBe(callIdOf(1));
  });
});
