import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/time/clock.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { callIdOf, contactcenter, importRecords, videoCall } from '../video/fixtures.js';

// "Not in the future" is judged on the server's clock. The fixed clock is years behind the real
// one: a time between the two is in the future for the server (refused) though long past for the
// machine, and a time just before the fixed now is accepted.
const FIXED = Date.parse('2021-03-04T05:06:07.890Z');
const SKEW_MS = 5 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const AFTER = iso(FIXED + SKEW_MS + 60_000);
const BEFORE = iso(FIXED - 60_000);

const { server, tenant } = useServer({ clock: fixedClock(iso(FIXED)), tenant: true });

it('the times used here are both in the real past', () => {
  expect(Date.parse(AFTER)).toBeLessThan(Date.now());
  expect(Date.parse(BEFORE)).toBeLessThan(Date.now());
});

describe('a video provider event `at`', () => {
  const joined = async (who: string, at: string) => {
    const created = await gql(server.url, tenant.accessToken, `mutation($app: UUID!, $input: CreateVideoCallInput!) { createVideoCall(appId: $app, input: $input) { callId } }`, {
      app: tenant.appId,
      input: { presetId: 'p', contactcenter },
    });
    return gql(
      server.url,
      tenant.accessToken,
      `mutation($app: UUID!, $call: UUID!, $who: String!, $at: DateTime) {
        recordVideoParticipantJoined(appId: $app, callId: $call, providerParticipantId: $who, role: participant, name: "N", at: $at) { participants { joinedAt } } }`,
      { app: tenant.appId, call: created.body.data.createVideoCall.callId, who, at },
    );
  };

  it('after the clock time is refused on `at`', async () => {
    const res = await joined('p1', AFTER);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'at', code: 'invalid_value', message: 'must not be in the future' }],
    });
  });

  it('before the clock time is accepted', async () => {
    const res = await joined('p1', BEFORE);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.recordVideoParticipantJoined.participants).toEqual([{ joinedAt: BEFORE }]);
  });
});

describe('an inbound event `timestamp`', () => {
  const event = (id: string, timestamp: string) => ({ type: 'message', id, from: '447700900001', text: 'hi', timestamp });

  it('REST: after the clock time is refused on `timestamp`, before it is accepted', async () => {
    const refused = await request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, { token: tenant.accessToken, json: event('wamid.future-rest', AFTER) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'validation_error', details: [{ field: 'timestamp', code: 'invalid_value', message: 'must not be in the future' }] });
    const accepted = await request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, { token: tenant.accessToken, json: event('wamid.past-rest', BEFORE) });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.applied).toBe(true);
  });

  it('GraphQL: after the clock time is refused on `event.timestamp`, before it is accepted', async () => {
    const ingest = (e: object) =>
      gql(server.url, tenant.accessToken, 'mutation($app: UUID!, $event: JSON!) { ingestInboundEvent(appId: $app, event: $event) { applied } }', { app: tenant.appId, event: e });
    const refused = await ingest(event('wamid.future-gql', AFTER));
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'event.timestamp', code: 'invalid_value', message: 'must not be in the future' }],
    });
    const accepted = await ingest(event('wamid.past-gql', BEFORE));
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data.ingestInboundEvent.applied).toBe(true);
  });
});

describe('a video_call import', () => {
  // A call whose every provider time is before the clock time.
  const pastCall = (n: number, joinedAt = iso(FIXED - 3_600_000)) => {
    const call: any = videoCall(n, { createdAt: iso(FIXED - 7_200_000) });
    Object.assign(call.participants[0], { joinedAt, leftAt: iso(FIXED - 3_000_000) });
    Object.assign(call.recordings[0], { createdAt: iso(FIXED - 3_500_000), updatedAt: iso(FIXED - 3_000_000) });
    return call;
  };

  it('a participant joinedAt after the clock time is refused naming the line and field', async () => {
    await expect(importRecords(server, tenant.appId, [pastCall(801, AFTER)])).rejects.toThrow('line 1: invalid video_call: participants.0.joinedAt: must not be in the future');
    expect((await request(`${server.videoUrl}/api/calls/${callIdOf(801)}`, { token: tenant.accessToken })).status).toBe(404);
  });

  it('times before the clock time import', async () => {
    await importRecords(server, tenant.appId, [pastCall(802)]);
    expect((await request(`${server.videoUrl}/api/calls/${callIdOf(802)}`, { token: tenant.accessToken })).status).toBe(200);
  });
});
