import { describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { callIdOf, contactcenter, importRecords, iso, participantIdOf, videoCall } from './fixtures.js';

// A provider event cannot have happened later than now. Like the inbound messaging timestamp,
// `at` may run ahead of our clock by a few minutes (clock skew), no more: an `at` in 2099 would
// bill decades of minutes. Text the database cannot store is refused too.

const { server, tenant } = useServer({ tenant: { scopes: ['video:read', 'scheduling:write'] } });

const FAR = '2099-01-01T00:00:00.000Z';
const SKEW_MS = 5 * 60_000;
const q = (query: string, variables: Record<string, unknown>) => gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
const SHORT = 'status participants { providerParticipantId joinedAt leftAt billedMinutes } usage { participantMinutes } recordings { status }';

const create = async () => {
  const res = await q(`mutation($app: UUID!, $input: CreateVideoCallInput!) { createVideoCall(appId: $app, input: $input) { callId } }`, {
    input: { presetId: 'p', contactcenter },
  });
  return res.body.data.createVideoCall.callId as string;
};
const joined = (call: string, who: string, at?: string) =>
  q(`mutation($app: UUID!, $call: UUID!, $who: String!, $at: DateTime) {
    recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: $who, role: participant, name: "N", at: $at) { ${SHORT} } }`, { call, who, at });
const left = (call: string, who: string, at?: string) =>
  q(`mutation($app: UUID!, $call: UUID!, $who: String!, $at: DateTime) {
    recordVideoParticipantLeft(appId: $app, callId: $call, providerParticipantId: $who, at: $at) { ${SHORT} } }`, { call, who, at });
const ended = (call: string, at?: string) =>
  q(`mutation($app: UUID!, $call: UUID!, $at: DateTime) { recordVideoCallEnded(appId: $app, callId: $call, at: $at) { ${SHORT} } }`, { call, at });
const recording = (call: string, at?: string) =>
  q(`mutation($app: UUID!, $call: UUID!, $at: DateTime) {
    recordVideoRecordingStatus(appId: $app, callId: $call, providerArchiveId: "arch-1", status: processing, at: $at) { ${SHORT} } }`, { call, at });
const lookup = async (call: string) => (await request(`${server.videoUrl}/api/calls/${call}`, { token: tenant.accessToken })).body.data;

function expectFutureRefused(res: { body: { data?: unknown; errors?: { extensions?: Record<string, any> }[] } }) {
  expect(res.body.errors?.[0]?.extensions).toMatchObject({
    code: 'validation_error',
    details: [{ field: 'at', code: 'invalid_value', message: 'must not be in the future' }],
  });
}

describe('provider events: `at` in the future is validation_error on `at`, and nothing moves', () => {
  it('join, leave, end and recording status refuse 2099; billing stays as it was', async () => {
    const call = await create();
    expectFutureRefused(await joined(call, 'p1', FAR));
    expect(await lookup(call)).toMatchObject({ status: 'created', participants: [] });

    const joinedAt = iso(Date.now() - 90_000);
    expect((await joined(call, 'p1', joinedAt)).body.errors).toBeUndefined();
    expectFutureRefused(await left(call, 'p1', FAR));
    expectFutureRefused(await recording(call, FAR));
    expectFutureRefused(await ended(call, FAR));
    const after = await lookup(call);
    expect(after).toMatchObject({ status: 'active', participants: [{ providerParticipantId: 'p1', joinedAt, leftAt: null }], recordings: [] });
    expect(after.usage.participantMinutes).toBeLessThanOrEqual(3);
  });

  it('a time within the clock skew is accepted; just beyond it is refused; no `at` means now', async () => {
    const call = await create();
    expect((await joined(call, 'p1', iso(Date.now() + SKEW_MS - 30_000))).body.errors).toBeUndefined();
    expectFutureRefused(await left(call, 'p1', iso(Date.now() + SKEW_MS + 30_000)));
    expect((await joined(call, 'p2')).body.errors).toBeUndefined();
    const end = await ended(call, iso(Date.now() + SKEW_MS - 20_000));
    expect(end.body.errors).toBeUndefined();
    expect(end.body.data.recordVideoCallEnded.status).toBe('ended');
  });
});

describe('video_call import: provider times in the future are refused naming the line and field', () => {
  it.each([
    ['a participant joinedAt', 'participants.0.joinedAt', (c: any) => (c.participants[0].joinedAt = FAR)],
    ['a participant leftAt', 'participants.0.leftAt', (c: any) => (c.participants[0].leftAt = FAR)],
    ['a recording updatedAt', 'recordings.0.updatedAt', (c: any) => (c.recordings[0].updatedAt = FAR)],
  ])('%s', async (_what, field, edit) => {
    const record: any = videoCall(701);
    edit(record);
    await expect(importRecords(server, tenant.appId, [record])).rejects.toThrow(`line 1: invalid video_call: ${field}: must not be in the future`);
    expect((await request(`${server.videoUrl}/api/calls/${callIdOf(701)}`, { token: tenant.accessToken })).status).toBe(404);
  });

  it('a past session imports and bills its minutes', async () => {
    await importRecords(server, tenant.appId, [videoCall(702)]);
    expect((await lookup(callIdOf(702))).participants).toEqual([expect.objectContaining({ id: participantIdOf(7021), billedMinutes: 2 })]);
  });
});

describe('text the database cannot store (a lone UTF-16 surrogate, NUL)', () => {
  it('createVideoCall refuses it in metadata (values and keys) and in text fields, naming the path', async () => {
    const createWith = (input: Record<string, unknown>) =>
      q(`mutation($app: UUID!, $input: CreateVideoCallInput!) { createVideoCall(appId: $app, input: $input) { callId } }`, {
        input: { presetId: 'p', contactcenter, ...input },
      });
    const detailsOf = (res: any) => res.body.errors?.[0]?.extensions;
    const countCalls = async () => (await q('query($app: UUID!) { videoCalls(appId: $app, first: 200) { nodes { callId } } }', {})).body.data.videoCalls.nodes.length;
    const before = await countCalls();
    expect(detailsOf(await createWith({ metadata: { crm: 'x\ud800' } }))).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'input.metadata.crm', code: 'invalid_format', message: expect.stringMatching(/lone UTF-16 surrogate/) }],
    });
    expect(detailsOf(await createWith({ metadata: { nested: [{ ['k\u0000']: 1 }] } }))).toMatchObject({
      details: [{ field: 'input.metadata.nested.0.k\u0000', message: expect.stringMatching(/key must not contain NUL/) }],
    });
    expect(detailsOf(await createWith({ guestName: '\udc00Grace' }))).toMatchObject({
      details: [{ field: 'input.guestName', code: 'invalid_format', message: expect.stringMatching(/lone UTF-16 surrogate/) }],
    });
    expect(await countCalls()).toBe(before);
  });

  it('a participant name with a lone surrogate is refused and no session opens', async () => {
    const call = await create();
    const res = await q(`mutation($app: UUID!, $call: UUID!, $name: String!) {
      recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: "p1", role: host, name: $name) { status } }`, { call, name: 'Ada\ud83d' });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field: 'name', code: 'invalid_format' }] });
    expect(await lookup(call)).toMatchObject({ status: 'created', participants: [] });
  });

  it('a recording url with a lone surrogate or a NUL is refused and no recording is stored', async () => {
    const call = await create();
    expect((await joined(call, 'p1')).body.errors).toBeUndefined();
    for (const url of ['https://files.example.com/a\ud800.mp4', 'https://files.example.com/a\u0000.mp4']) {
      const res = await q(`mutation($app: UUID!, $call: UUID!, $url: String) {
        recordVideoRecordingStatus(appId: $app, callId: $call, providerArchiveId: "arch-1", status: available, url: $url) { status } }`, { call, url });
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field: 'url', code: 'invalid_format' }] });
    }
    expect((await lookup(call)).recordings).toEqual([]);
  });
});
