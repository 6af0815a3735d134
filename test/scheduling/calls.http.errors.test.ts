import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, booking, callIdOf, everyDay, futureDay, importedCall, importRecords, tenantSetUp } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);
const A2 = agentIdOf(2);

const setUp = tenantSetUp(server);


describe('POST /video/{appId}/scheduled-calls', () => {
  it('409 for a slot that is taken, outside working hours, blocked or in do-not-disturb', async () => {
    const start = futureDay(7, 10);
    const { a } = await setUp({
      agents: [
        agent(1, 'UTC', everyDay('09:00', '12:00')),
        { type: 'availability_exception', id: '00000000-0000-4000-8e00-000000000101', agent_id: A1, kind: 'blocked', start_utc: futureDay(7, 11).toISOString(), end_utc: futureDay(7, 11, 30).toISOString() },
        { type: 'dnd', id: '00000000-0000-4000-8d00-000000000101', agent_id: A1, start_utc: futureDay(7, 9).toISOString(), end_utc: futureDay(7, 9, 30).toISOString() },
      ],
    });
    expect((await a.create(booking(start, { assignedAgentId: A1 }))).status).toBe(201);
    for (const taken of [futureDay(7, 10, 15), futureDay(7, 13), futureDay(7, 11), futureDay(7, 9)]) {
      const res = await a.create(booking(taken, { assignedAgentId: A1 }));
      expect(res.status).toBe(409);
      expectErrorEnvelope(res.body, 'conflict');
    }
    // Right after the first call is free.
    expect((await a.create(booking(futureDay(7, 10, 30), { assignedAgentId: A1 }))).status).toBe(201);
  });

  const bad: [string, object, string][] = [
    ['scheduledAtUtc missing', { scheduledAtUtc: undefined }, 'scheduledAtUtc'],
    ['scheduledAtUtc not a timestamp', { scheduledAtUtc: 'soon' }, 'scheduledAtUtc'],
    ['scheduledAtUtc in the past', { scheduledAtUtc: '2020-01-01T10:00:00Z' }, 'scheduledAtUtc'],
    ['durationMinutes missing', { durationMinutes: undefined }, 'durationMinutes'],
    ['durationMinutes below 5', { durationMinutes: 4 }, 'durationMinutes'],
    ['durationMinutes above 480', { durationMinutes: 481 }, 'durationMinutes'],
    ['durationMinutes a string', { durationMinutes: '30' }, 'durationMinutes'],
    ['guestName missing', { guestName: undefined }, 'guestName'],
    ['guestName empty', { guestName: '  ' }, 'guestName'],
    ['guestEmail malformed', { guestEmail: 'ann at example' }, 'guestEmail'],
    ['guestPhone malformed', { guestPhone: 'call me' }, 'guestPhone'],
    ['guestTimezone unknown', { guestTimezone: 'Mars/Olympus' }, 'guestTimezone'],
    ['assignedAgentId not a UUID', { assignedAgentId: 'a1' }, 'assignedAgentId'],
    ['assignedAgentId of no agent', { assignedAgentId: agentIdOf(99) }, 'assignedAgentId'],
    ['an unknown field', { color: 'blue' }, 'color'],
  ];

  for (const [name, change, field] of bad) {
    it(`400 invalid_request: ${name}`, async () => {
      const { a } = await setUp();
      const res = await a.create({ ...booking(futureDay(8, 10)), ...change });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  }

  it('400 invalid_request for a body that is not JSON or not an object', async () => {
    const { tenant, a } = await setUp();
    const broken = await fetch(`${a.base}/scheduled-calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: '{"guestName": ',
    });
    expect(broken.status).toBe(400);
    expectErrorEnvelope(await broken.json(), 'invalid_request');
    const array = await a.create([booking(futureDay(8, 10))]);
    expect(array.status).toBe(400);
    expectErrorEnvelope(array.body, 'invalid_request');
  });
});

describe('GET /video/{appId}/scheduled-calls (list)', () => {
  it('bad limit, cursor, status, agentId and dates are invalid_request', async () => {
    const { a } = await setUp();
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
      ['?limit=ten', 'limit'],
      ['?cursor=bogus', 'cursor'],
      ['?status=pending', 'status'],
      ['?agentId=nope', 'agentId'],
      ['?fromUtc=yesterday', 'fromUtc'],
    ]) {
      const res = await a.list(query);
      expect(res.status, query).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details?.map((d: { field: string }) => d.field) ?? [], query).toContain(field);
    }
  });
});

describe('PATCH /video/{appId}/scheduled-calls/{id} (call states)', () => {
  it('409 when the new slot is taken (also by a reassignment), untouched call and timeline', async () => {
    const { a } = await setUp();
    const busy = await a.create(booking(futureDay(12, 10), { assignedAgentId: A2 }));
    expect(busy.status).toBe(201);
    const id = (await a.create(booking(futureDay(12, 14), { assignedAgentId: A1 }))).body.data.call.id;
    const overlapping = await a.patch(id, { scheduledAtUtc: futureDay(12, 10, 15).toISOString(), assignedAgentId: A2 });
    expect(overlapping.status).toBe(409);
    expectErrorEnvelope(overlapping.body, 'conflict');
    const reassigned = await a.patch(id, { assignedAgentId: A2, scheduledAtUtc: futureDay(12, 10).toISOString() });
    expect(reassigned.status).toBe(409);
    const { call, events } = (await a.get(id)).body.data;
    expect(call).toMatchObject({ assigned_agent_id: A1, scheduled_at: futureDay(12, 14).toISOString() });
    expect(events).toHaveLength(1);
    // Moving within its own time (overlapping itself) is fine.
    expect((await a.patch(id, { scheduledAtUtc: futureDay(12, 14, 15).toISOString() })).status).toBe(200);
  });

  it('409 for every final state, whatever the body', async () => {
    const { tenant, a } = await setUp();
    await importRecords(server, tenant.appId, [
      importedCall(201, 1, '2026-01-05T10:00:00.000Z', 30, { status: 'completed' }),
      importedCall(202, 1, '2026-01-05T11:00:00.000Z', 30, { status: 'no_show' }),
      importedCall(203, 1, '2026-01-05T12:00:00.000Z', 30, { status: 'cancelled', cancelled_at: '2026-01-04T00:00:00Z', cancellation_reason: 'x' }),
    ]);
    for (const n of [201, 202, 203]) {
      for (const body of [{ guestName: 'X' }, { scheduledAtUtc: futureDay(20, 10).toISOString() }]) {
        const res = await a.patch(callIdOf(n), body);
        expect(res.status).toBe(409);
        expectErrorEnvelope(res.body, 'conflict');
      }
    }
  });

  const bad: [string, unknown, string | undefined][] = [
    ['an empty body', {}, undefined],
    ['only a reason', { reason: 'why not' }, undefined],
    ['scheduledAtUtc not a timestamp', { scheduledAtUtc: 'later' }, 'scheduledAtUtc'],
    ['scheduledAtUtc null', { scheduledAtUtc: null }, 'scheduledAtUtc'],
    ['scheduledAtUtc in the past', { scheduledAtUtc: '2021-06-01T10:00:00Z' }, 'scheduledAtUtc'],
    ['assignedAgentId not a UUID', { assignedAgentId: 'x' }, 'assignedAgentId'],
    ['assignedAgentId of no agent', { assignedAgentId: agentIdOf(77) }, 'assignedAgentId'],
    ['guestName empty', { guestName: '' }, 'guestName'],
    ['guestName null', { guestName: null }, 'guestName'],
    ['guestEmail malformed', { guestEmail: 'nope' }, 'guestEmail'],
    ['guestTimezone unknown', { guestTimezone: 'Europe/Atlantis' }, 'guestTimezone'],
    ['guestIntakeNotes a number', { guestIntakeNotes: 5 }, 'guestIntakeNotes'],
    ['an unknown field', { durationMinutes: 45 }, 'durationMinutes'],
    ['an array body', [{ guestName: 'X' }], undefined],
  ];

  for (const [name, body, field] of bad) {
    it(`400 invalid_request: ${name}`, async () => {
      const { a } = await setUp();
      const id = (await a.create(booking(futureDay(13, 10)))).body.data.call.id;
      const res = await a.patch(id, body);
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await a.get(id)).body.data.events).toHaveLength(1);
    });
  }

  it('400 invalid_request for a body that is not JSON', async () => {
    const { tenant, a } = await setUp();
    const id = (await a.create(booking(futureDay(13, 12)))).body.data.call.id;
    const res = await fetch(`${a.base}/scheduled-calls/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: 'guestName=X',
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(await res.json(), 'invalid_request');
  });
});

describe('DELETE /video/{appId}/scheduled-calls/{id}', () => {
  it('409 for a completed or no-show call; 400 for a reason that is not a string', async () => {
    const { tenant, a } = await setUp();
    await importRecords(server, tenant.appId, [
      importedCall(301, 1, '2026-01-06T10:00:00.000Z', 30, { status: 'completed' }),
      importedCall(302, 1, '2026-01-06T11:00:00.000Z', 30, { status: 'no_show' }),
    ]);
    for (const n of [301, 302]) expect((await a.cancel(callIdOf(n))).status).toBe(409);
    const id = (await a.create(booking(futureDay(15, 14)))).body.data.call.id;
    const res = await a.cancel(id, { json: { reason: 42 } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
  });

  it('400 for a body key it does not know (a misspelt reason), and the call stays as it was', async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(15, 16)))).body.data.call.id;
    for (const body of [{ reasn: 'typo' }, { reason: 'fine', appId: 'x' }]) {
      const res = await a.cancel(id, { json: body });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details).toEqual([{ field: Object.keys(body).at(-1), code: 'unrecognized', message: 'Unrecognized field' }]);
    }
    expect((await a.get(id)).body.data.call.status).toBe('scheduled');
  });

  it('400 for a query parameter it does not know (a misspelt reason), and the call stays as it was', async () => {
    const { a } = await setUp();
    const id = (await a.create(booking(futureDay(15, 17)))).body.data.call.id;
    const res = await a.cancel(id, { query: '?reasn=guest%20asked' });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details).toEqual([{ field: 'reasn', code: 'unrecognized', message: 'Unrecognized query parameter' }]);
    expect((await a.get(id)).body.data.call.status).toBe('scheduled');
  });
});
