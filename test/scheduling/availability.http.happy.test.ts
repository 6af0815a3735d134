import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, at, callIdOf, dndIdOf, everyDay, exceptionIdOf, importedCall, importRecords, nineToFive, slot } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);
const A2 = agentIdOf(2);

interface Scenario {
  name: string;
  records: object[];
  params: Record<string, string | number | boolean>;
  slots: ReturnType<typeof slot>[];
}

// Exact expected slots in UTC, worked out by hand from the slot rules, not by the engine.
const scenarios: Scenario[] = [
  {
    name: 'US spring forward: 09:00-17:00 New York is 14:00Z on Saturday, 13:00Z on the DST Sunday',
    records: [agent(1, 'America/New_York', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-03-07T12:00:00Z', toUtc: '2026-03-09T00:00:00Z', durationMinutes: 480, stepMinutes: 60 },
    slots: [slot('2026-03-07T14:00:00Z', 480), slot('2026-03-08T13:00:00Z', 480)],
  },
  {
    name: 'US fall back: 13:00Z on the last EDT Saturday, 14:00Z on the EST Sunday',
    records: [agent(1, 'America/New_York', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-10-31T12:00:00Z', toUtc: '2026-11-02T00:00:00Z', durationMinutes: 480, stepMinutes: 60 },
    slots: [slot('2026-10-31T13:00:00Z', 480), slot('2026-11-01T14:00:00Z', 480)],
  },
  {
    name: 'EU spring forward: Berlin 09:00 is 08:00Z on Saturday, 07:00Z on the CEST Sunday',
    records: [agent(1, 'Europe/Berlin', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-03-28T06:00:00Z', toUtc: '2026-03-30T00:00:00Z', durationMinutes: 480, stepMinutes: 60 },
    slots: [slot('2026-03-28T08:00:00Z', 480), slot('2026-03-29T07:00:00Z', 480)],
  },
  {
    name: 'EU fall back: 07:00Z on the last CEST Saturday, 08:00Z on the CET Sunday',
    records: [agent(1, 'Europe/Berlin', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-10-24T06:00:00Z', toUtc: '2026-10-26T00:00:00Z', durationMinutes: 480, stepMinutes: 60 },
    slots: [slot('2026-10-24T07:00:00Z', 480), slot('2026-10-25T08:00:00Z', 480)],
  },
  {
    name: 'a split day: the lunch hour is not offered',
    records: [agent(1, 'UTC', { mon: [['09:00', '12:00'], ['13:00', '17:00']] })],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T17:00:00Z', durationMinutes: 60 },
    slots: ['09', '10', '11', '13', '14', '15', '16'].map((h) => slot(`2026-03-09T${h}:00:00Z`, 60)),
  },
  {
    name: 'hours past midnight: friday 22:00-02:00 runs into saturday',
    records: [agent(1, 'UTC', { fri: [['22:00', '02:00']] })],
    params: { fromUtc: '2026-03-13T21:00:00Z', toUtc: '2026-03-14T03:00:00Z', durationMinutes: 60 },
    slots: ['2026-03-13T22', '2026-03-13T23', '2026-03-14T00', '2026-03-14T01'].map((h) => slot(`${h}:00:00Z`, 60)),
  },
  {
    name: 'buffers keep their distance from a call and a blocked exception',
    records: [
      agent(1, 'UTC', everyDay('09:00', '17:00')),
      importedCall(1, 1, '2026-03-09T12:00:00.000Z', 60),
      { type: 'availability_exception', id: exceptionIdOf(1), agent_id: A1, kind: 'blocked', start_utc: '2026-03-09T15:00:00Z', end_utc: '2026-03-09T16:00:00Z' },
    ],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T17:00:00Z', durationMinutes: 60, stepMinutes: 30, bufferBeforeMinutes: 15, bufferAfterMinutes: 15 },
    slots: ['09:00', '09:30', '10:00', '10:30', '13:30'].map((t) => slot(`2026-03-09T${t}:00Z`, 60)),
  },
  {
    name: 'a do-not-disturb window excludes every slot it touches',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00')), { type: 'dnd', id: dndIdOf(1), agent_id: A1, start_utc: '2026-03-09T10:00:00Z', end_utc: '2026-03-09T11:30:00Z' }],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: 60, stepMinutes: 30 },
    slots: [slot('2026-03-09T09:00:00Z', 60)],
  },
  {
    name: 'available_extra on a day off',
    records: [
      agent(1, 'UTC', nineToFive),
      { type: 'availability_exception', id: exceptionIdOf(2), agent_id: A1, kind: 'available_extra', start_utc: '2026-03-14T10:00:00Z', end_utc: '2026-03-14T12:00:00Z' },
    ],
    params: { fromUtc: '2026-03-14T08:00:00Z', toUtc: '2026-03-14T14:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-14T10:00:00Z', 60), slot('2026-03-14T11:00:00Z', 60)],
  },
  {
    name: 'respectWorkingHours=true on a day off offers nothing',
    records: [agent(1, 'UTC', nineToFive)],
    params: { fromUtc: '2026-03-14T08:00:00Z', toUtc: '2026-03-14T11:00:00Z', durationMinutes: 60 },
    slots: [],
  },
  {
    name: 'respectWorkingHours=false offers hours off, but conflicts still apply',
    records: [agent(1, 'UTC', nineToFive), { type: 'dnd', id: dndIdOf(2), agent_id: A1, start_utc: '2026-03-14T09:00:00Z', end_utc: '2026-03-14T10:00:00Z' }],
    params: { fromUtc: '2026-03-14T08:00:00Z', toUtc: '2026-03-14T11:00:00Z', durationMinutes: 60, respectWorkingHours: false },
    slots: [slot('2026-03-14T08:00:00Z', 60), slot('2026-03-14T10:00:00Z', 60)],
  },
  {
    name: 'a step smaller than the duration',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T11:00:00Z', durationMinutes: 60, stepMinutes: 15 },
    slots: ['09:00', '09:15', '09:30', '09:45', '10:00'].map((t) => slot(`2026-03-09T${t}:00Z`, 60)),
  },
  {
    name: 'several agents: ordered by start, then agentId',
    records: [agent(2, 'UTC', everyDay('09:00', '17:00')), agent(1, 'UTC', everyDay('09:00', '17:00')), importedCall(2, 1, '2026-03-09T09:00:00.000Z', 60)],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T11:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-09T09:00:00Z', 60, A2), slot('2026-03-09T10:00:00Z', 60, A1), slot('2026-03-09T10:00:00Z', 60, A2)],
  },
  {
    name: 'cancelled and completed calls do not block; an agent without hours is not considered by default',
    records: [
      agent(1, 'UTC', everyDay('09:00', '17:00')),
      agent(2, 'UTC', {}),
      importedCall(3, 1, '2026-03-09T09:00:00.000Z', 60, { status: 'cancelled', cancelled_at: '2026-03-01T00:00:00Z', cancellation_reason: 'x' }),
      importedCall(4, 1, '2026-03-09T10:00:00.000Z', 60, { status: 'completed' }),
    ],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T11:00:00Z', durationMinutes: 60, respectWorkingHours: false },
    slots: [slot('2026-03-09T09:00:00Z', 60), slot('2026-03-09T10:00:00Z', 60)],
  },
];

describe('GET /video/{appId}/availability: scenarios', () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const tenant = await server.tenant({ scopes: ['scheduling:read'] });
      await importRecords(server, tenant.appId, scenario.records);
      const res = await api(server, tenant).availability(scenario.params);
      expect(res.status).toBe(200);
      // The availability response carries only `data`, no `meta`.
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.body.data.slots).toEqual(scenario.slots);
    });
  }

  it('the GraphQL twin returns the same slots; explain mode returns them too, and why the others are refused', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    const buffers = scenarios.find((s) => s.name.startsWith('buffers'))!;
    // Call ids are unique across apps: this app's copy of the call gets an id of its own.
    const records = buffers.records.map((r) => ('assigned_agent_id' in r ? { ...r, id: callIdOf(11) } : r));
    await importRecords(server, tenant.appId, records);
    const a = api(server, tenant);
    const rest = await a.availability(buffers.params);
    const args = `appId: $app, fromUtc: "2026-03-09T09:00:00Z", toUtc: "2026-03-09T17:00:00Z", durationMinutes: 60, stepMinutes: 30, bufferBeforeMinutes: 15, bufferAfterMinutes: 15`;
    const graph = await a.gql(
      `query($app: UUID!) {
        availability(${args}) { slots { startUtc endUtc agentId } }
        availabilityExplained(${args}) { slots { startUtc endUtc agentId } rejected { startUtc agentId reasons { code id kind } } }
      }`,
      { app: tenant.appId },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.availability.slots).toEqual(rest.body.data.slots);
    const explained = graph.body.data.availabilityExplained;
    expect(explained.slots).toEqual(rest.body.data.slots);
    // 15 candidates: 5 slots, 10 rejected, each with a reason.
    expect(explained.rejected).toHaveLength(10);
    const why = (time: string) => explained.rejected.find((r: { startUtc: string }) => r.startUtc === at(`2026-03-09T${time}:00Z`))?.reasons;
    expect(why('11:00')).toEqual([{ code: 'buffer_overlap', id: callIdOf(11), kind: 'call' }]);
    expect(why('11:30')).toEqual([{ code: 'conflicts_call', id: callIdOf(11), kind: null }]);
    expect(why('14:00')).toEqual([{ code: 'buffer_overlap', id: exceptionIdOf(1), kind: 'blocked' }]);
    expect(why('15:00')).toEqual([{ code: 'blocked', id: exceptionIdOf(1), kind: null }]);
    expect(why('13:30')).toBeUndefined();
  });

  it('explain mode names hours and do-not-disturb', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    await importRecords(server, tenant.appId, [
      agent(1, 'UTC', everyDay('09:00', '17:00')),
      { type: 'dnd', id: dndIdOf(3), agent_id: A1, start_utc: '2026-03-09T09:00:00Z', end_utc: '2026-03-09T10:00:00Z' },
    ]);
    const res = await api(server, tenant).gql(
      `query($app: UUID!) { availabilityExplained(appId: $app, fromUtc: "2026-03-09T08:00:00Z", toUtc: "2026-03-09T11:00:00Z", durationMinutes: 60) {
        slots { startUtc } rejected { startUtc reasons { code id } } } }`,
      { app: tenant.appId },
    );
    expect(res.body.data.availabilityExplained).toEqual({
      slots: [{ startUtc: at('2026-03-09T10:00:00Z') }],
      rejected: [
        { startUtc: at('2026-03-09T08:00:00Z'), reasons: [{ code: 'outside_working_hours', id: null }] },
        { startUtc: at('2026-03-09T09:00:00Z'), reasons: [{ code: 'do_not_disturb', id: dndIdOf(3) }] },
      ],
    });
  });
});
