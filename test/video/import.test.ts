import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { videoCalls, videoParticipants, videoRecordings } from '../../src/video/tables.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { callIdOf, importRecords, participantIdOf, recordingIdOf, videoCall } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read'] } });

const lookup = (n: number, token = tenant.accessToken) => request(`${server.videoUrl}/api/calls/${callIdOf(n)}`, { token });
const rowCounts = async () => {
  const { db } = server.runtime.database;
  const [calls] = await db.select({ n: count() }).from(videoCalls);
  const [participants] = await db.select({ n: count() }).from(videoParticipants);
  const [recordings] = await db.select({ n: count() }).from(videoRecordings);
  return { calls: calls!.n, participants: participants!.n, recordings: recordings!.n };
};

const session = (n: number, extra: Record<string, unknown> = {}) => ({
  id: participantIdOf(n),
  providerParticipantId: `pp-${n}`,
  role: 'participant',
  name: `P${n}`,
  joinedAt: '2026-03-01T10:00:00Z',
  leftAt: '2026-03-01T10:02:00Z',
  ...extra,
});

describe('import: video_call records', () => {
  it('counts records and upserts on callId, replacing participants and recordings', async () => {
    expect(await importRecords(server, tenant.appId, [videoCall(1), videoCall(2)])).toEqual({ video_call: 2 });
    const twoSessions = videoCall(1, {
      title: 'Renamed',
      // Multi-word columns too (a drizzle upsert `set` keyed by column name would skip them).
      presetId: 'preset-renamed',
      hostName: 'Host Renamed',
      contactcenter: { ...videoCall(1).contactcenter, ccLangTag: 'fr-FR' },
      participants: [session(101), session(102)],
      recordings: [],
    });
    expect(await importRecords(server, tenant.appId, [twoSessions])).toEqual({ video_call: 1 });
    const { body } = await lookup(1);
    expect(body.data.title).toBe('Renamed');
    expect(body.data.presetId).toBe('preset-renamed');
    expect(body.data.hostName).toBe('Host Renamed');
    expect(body.data.contactcenter.ccLangTag).toBe('fr-FR');
    expect(body.data.participants.map((p: any) => p.id)).toEqual([participantIdOf(101), participantIdOf(102)]);
    expect(body.data.usage.participantMinutes).toBe(4);
    expect(body.data.recordings).toEqual([]);
    // The other call is untouched; no orphans of the replaced rows remain.
    expect((await lookup(2)).body.data.participants).toHaveLength(1);
    const { db } = server.runtime.database;
    expect(await db.select().from(videoParticipants).where(eq(videoParticipants.callId, callIdOf(1)))).toHaveLength(2);
    expect(await db.select().from(videoRecordings).where(eq(videoRecordings.callId, callIdOf(1)))).toHaveLength(0);
  });

  it('the last line of a callId wins within one file', async () => {
    await importRecords(server, tenant.appId, [videoCall(3, { title: 'first' }), videoCall(3, { title: 'second', participants: [session(301)] })]);
    const { body } = await lookup(3);
    expect(body.data.title).toBe('second');
    expect(body.data.participants.map((p: any) => p.id)).toEqual([participantIdOf(301)]);
  });

  it('accepts a lookup response as a record: billedMinutes and usage are recomputed, not trusted', async () => {
    const exported = (await lookup(2)).body.data;
    const record = {
      type: 'video_call',
      ...exported,
      callId: callIdOf(4),
      usage: { participantMinutes: 999 },
      participants: exported.participants.map((p: any) => ({ ...p, id: participantIdOf(401), billedMinutes: 999 })),
      recordings: exported.recordings.map((r: any) => ({ ...r, id: recordingIdOf(401) })),
    };
    await importRecords(server, tenant.appId, [record]);
    const { body } = await lookup(4);
    expect(body.data.usage.participantMinutes).toBe(2);
    expect(body.data.participants[0].billedMinutes).toBe(2);
    expect({ ...body.data, callId: undefined, participants: undefined, recordings: undefined }).toEqual({
      ...exported,
      callId: undefined,
      participants: undefined,
      recordings: undefined,
    });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown status', { status: 'finished' }, /line 2: invalid video_call: status:/],
    ['a callId that is not a UUID', { callId: 'call-1' }, /line 2: invalid video_call: callId:/],
    ['a missing contactcenter', { contactcenter: undefined }, /line 2: invalid video_call: contactcenter: Required/],
    ['an incomplete contactcenter', { contactcenter: { conversationId: 'c' } }, /line 2: invalid video_call: contactcenter\.ccHostOrigin: Required/],
    ['a provider without meetingId', { provider: { name: 'vonage' } }, /line 2: invalid video_call: provider\.meetingId: Required/],
    ['an unknown field', { colour: 'red' }, /line 2: invalid video_call: colour: Unrecognized field/],
    ['metadata that is not an object', { metadata: 'text' }, /line 2: invalid video_call: metadata:/],
    ['participants on a created call', { status: 'created' }, /line 2: invalid video_call: participants: a created call has no participants/],
    ['a connected participant on an ended call', { participants: [session(1, { leftAt: null })] }, /participants\.0\.leftAt: required: everyone has left an ended call/],
    ['leftAt before joinedAt', { participants: [session(1, { leftAt: '2026-03-01T09:00:00Z' })] }, /participants\.0\.leftAt: must not be before joinedAt/],
    ['duplicate participant ids', { participants: [session(1), session(1)] }, /participants\.1\.id: duplicate id/],
    ['an unknown role', { participants: [session(1, { role: 'moderator' })] }, /participants\.0\.role:/],
    [
      'one participant connected twice',
      { status: 'active', participants: [session(1, { leftAt: null }), session(2, { providerParticipantId: 'pp-1', leftAt: null })] },
      /participants\.1\.providerParticipantId: already connected/,
    ],
    [
      'a recording with an unknown status',
      { recordings: [{ ...(videoCall(0).recordings[0] as object), status: 'done' }] },
      /recordings\.0\.status:/,
    ],
  ])('%s aborts the whole file naming its line, with nothing written', async (_name, overrides, message) => {
    const before = await rowCounts();
    const lines = [videoCall(50), { ...videoCall(51), ...overrides }];
    await expect(importRecords(server, tenant.appId, lines)).rejects.toThrow(message);
    expect(await rowCounts()).toEqual(before);
  });

  it("a callId of another app's call is refused, and that call is left alone", async () => {
    const stranger = await server.tenant({ scopes: ['video:read'] });
    await importRecords(server, stranger.appId, [videoCall(60, { title: 'theirs' })]);
    const before = await rowCounts();
    await expect(importRecords(server, tenant.appId, [videoCall(61), videoCall(60, { title: 'hijacked' })])).rejects.toThrow(
      /line 2: video_call could not be written: callId .*060 belongs to another app/,
    );
    expect(await rowCounts()).toEqual(before);
    expect((await lookup(60, stranger.accessToken)).body.data.title).toBe('theirs');
    expect((await lookup(61)).status).toBe(404);
  });
});
