import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, callIdOf, everyDay, futureDay, importedCall, importRecords } from './fixtures.js';

// Text PostgreSQL cannot store is refused like a NUL, with the field's path. Unchecked, a lone
// UTF-16 surrogate (the JSON escape "\ud800" without its pair) would be a 500 where it reaches
// jsonb (the timeline's payload: a PATCH or DELETE reason) and silently become U+FFFD in text
// columns (guestName).

const { server, tenant } = useServer({ tenant: true });
let a: ReturnType<typeof api>;

beforeAll(async () => {
  a = api(server, tenant);
  await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
});

const LONE = 'x\ud800y';
const SURROGATE_MESSAGE = /lone UTF-16 surrogate/;
let hour = 0;
/** A fresh booked call (one hour apart, so bookings never collide). */
async function booked(): Promise<string> {
  const res = await a.create({ scheduledAtUtc: futureDay(3, hour++).toISOString(), durationMinutes: 30, guestName: 'Ann Lee', assignedAgentId: agentIdOf(1) });
  expect(res.status).toBe(201);
  return res.body.data.call.id as string;
}

function expectRefused(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(400);
  expectErrorEnvelope(res.body, 'invalid_request');
  expect(res.body.error.details).toContainEqual({ field, code: 'invalid_format', message: expect.stringMatching(SURROGATE_MESSAGE) });
}

describe('scheduled calls: a lone surrogate is invalid_request naming the field, and changes nothing', () => {
  it('POST: guestName, bookingSource and guestIntakeNotes; nothing is booked', async () => {
    const booking = { scheduledAtUtc: futureDay(4, 9).toISOString(), durationMinutes: 30 };
    expectRefused(await a.create({ ...booking, guestName: LONE }), 'guestName');
    expectRefused(await a.create({ ...booking, guestName: 'Ann', bookingSource: LONE }), 'bookingSource');
    expectRefused(await a.create({ ...booking, guestName: 'Ann', guestIntakeNotes: `notes \udfff` }), 'guestIntakeNotes');
    expect((await a.list(`?fromUtc=${booking.scheduledAtUtc}`)).body.data).toEqual([]);
  });

  it('PATCH: reason and guestName; the call and its timeline stay as they were', async () => {
    const id = await booked();
    expectRefused(await a.patch(id, { reason: LONE, guestIntakeNotes: 'new' }), 'reason');
    expectRefused(await a.patch(id, { guestName: LONE }), 'guestName');
    const got = (await a.get(id)).body.data;
    expect(got.call).toMatchObject({ guest_name: 'Ann Lee' });
    expect(got.call.guest_intake_notes).toBeNull();
    expect(got.events.map((e: { event_type: string }) => e.event_type)).toEqual(['created']);
  });

  it('DELETE: a reason in the body; the call stays scheduled', async () => {
    const id = await booked();
    // (A query string cannot carry one: percent-decoding makes bad UTF-8 U+FFFD.)
    expectRefused(await a.cancel(id, { json: { reason: LONE } }), 'reason');
    const got = (await a.get(id)).body.data;
    expect(got.call.status).toBe('scheduled');
    expect(got.events).toHaveLength(1);
    // A reason with a proper pair (an emoji) is stored as sent.
    const ok = await a.cancel(id, { json: { reason: 'bye 👋' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.call.cancellation_reason).toBe('bye 👋');
  });

  it('GraphQL updateScheduledCall and cancelScheduledCall: invalid_request on the argument path', async () => {
    const id = await booked();
    const update = await a.gql('mutation($app: UUID!, $id: UUID!, $input: UpdateScheduledCallInput!) { updateScheduledCall(appId: $app, id: $id, input: $input) { id: callId } }', {
      app: tenant.appId,
      id,
      input: { reason: LONE },
    });
    expect(update.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'input.reason', code: 'invalid_format' }] });
    const cancel = await a.gql('mutation($app: UUID!, $id: UUID!, $reason: String) { cancelScheduledCall(appId: $app, id: $id, reason: $reason) { id: callId } }', {
      app: tenant.appId,
      id,
      reason: LONE,
    });
    expect(cancel.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'reason', code: 'invalid_format' }] });
    expect((await a.get(id)).body.data.events).toHaveLength(1);
  });

  it('import: a scheduled_call with a lone surrogate is refused naming its line and field', async () => {
    await expect(importRecords(server, tenant.appId, [importedCall(901, 1, futureDay(9, 10).toISOString(), 30, { cancellation_reason: LONE, status: 'cancelled', cancelled_at: '2026-01-02T00:00:00Z' })])).rejects.toThrow(
      /line 1: .*cancellation_reason: must not contain a lone UTF-16 surrogate/,
    );
    expect((await a.get(callIdOf(901))).status).toBe(404);
  });
});
