import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, callIdOf, dndIdOf, everyDay, exceptionIdOf, importedCall, importRecords, nineToFive, slot } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);
const A2 = agentIdOf(2);

interface Reason {
  code: string;
  id: string | null;
  kind: string | null;
}
interface Rejected {
  startUtc: string;
  endUtc: string;
  agentId: string;
  reasons: Reason[];
}

const reason = (code: string, id: string | null = null, kind: string | null = null): Reason => ({ code, id, kind });
const rejected = (start: string, minutes: number, reasons: Reason[], agentId = A1): Rejected => {
  const { startUtc, endUtc } = slot(start, minutes);
  return { startUtc, endUtc, agentId, reasons };
};

interface Scenario {
  name: string;
  records: object[];
  params: Record<string, string | number | boolean>;
  slots: ReturnType<typeof slot>[];
  rejected: Rejected[];
}

// Expected answers worked out by hand from the slot rules. Every id is this file's own: call,
// exception and window ids are unique across apps.
const scenarios: Scenario[] = [
  {
    name: 'working hours: the hours before 09:00 are outside_working_hours',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00'))],
    params: { fromUtc: '2026-03-09T07:00:00Z', toUtc: '2026-03-09T11:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-09T09:00:00Z', 60), slot('2026-03-09T10:00:00Z', 60)],
    rejected: [rejected('2026-03-09T07:00:00Z', 60, [reason('outside_working_hours')]), rejected('2026-03-09T08:00:00Z', 60, [reason('outside_working_hours')])],
  },
  {
    name: 'an existing call is conflicts_call with its id',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00')), importedCall(201, 1, '2026-03-09T10:00:00.000Z', 60)],
    params: { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-09T09:00:00Z', 60), slot('2026-03-09T11:00:00Z', 60)],
    rejected: [rejected('2026-03-09T10:00:00Z', 60, [reason('conflicts_call', callIdOf(201))])],
  },
  {
    name: 'do-not-disturb is do_not_disturb with its id, after outside_working_hours where both hold',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00')), { type: 'dnd', id: dndIdOf(201), agent_id: A1, start_utc: '2026-03-09T08:30:00Z', end_utc: '2026-03-09T10:30:00Z' }],
    params: { fromUtc: '2026-03-09T08:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-09T11:00:00Z', 60)],
    rejected: [
      rejected('2026-03-09T08:00:00Z', 60, [reason('outside_working_hours'), reason('do_not_disturb', dndIdOf(201))]),
      rejected('2026-03-09T09:00:00Z', 60, [reason('do_not_disturb', dndIdOf(201))]),
      rejected('2026-03-09T10:00:00Z', 60, [reason('do_not_disturb', dndIdOf(201))]),
    ],
  },
  {
    name: 'buffers: only the buffered range overlapping is buffer_overlap of kind call',
    records: [agent(1, 'UTC', everyDay('09:00', '17:00')), importedCall(202, 1, '2026-03-09T12:00:00.000Z', 60)],
    params: { fromUtc: '2026-03-09T10:00:00Z', toUtc: '2026-03-09T15:00:00Z', durationMinutes: 60, bufferBeforeMinutes: 30, bufferAfterMinutes: 30 },
    slots: [slot('2026-03-09T10:00:00Z', 60), slot('2026-03-09T14:00:00Z', 60)],
    rejected: [
      rejected('2026-03-09T11:00:00Z', 60, [reason('buffer_overlap', callIdOf(202), 'call')]),
      rejected('2026-03-09T12:00:00Z', 60, [reason('conflicts_call', callIdOf(202))]),
      rejected('2026-03-09T13:00:00Z', 60, [reason('buffer_overlap', callIdOf(202), 'call')]),
    ],
  },
  {
    name: 'exceptions: available_extra opens a day off, a blocked exception inside it is blocked',
    records: [
      agent(1, 'UTC', nineToFive),
      { type: 'availability_exception', id: exceptionIdOf(201), agent_id: A1, kind: 'available_extra', start_utc: '2026-03-14T10:00:00Z', end_utc: '2026-03-14T12:00:00Z' },
      { type: 'availability_exception', id: exceptionIdOf(202), agent_id: A1, kind: 'blocked', start_utc: '2026-03-14T11:00:00Z', end_utc: '2026-03-14T12:00:00Z' },
    ],
    params: { fromUtc: '2026-03-14T09:00:00Z', toUtc: '2026-03-14T13:00:00Z', durationMinutes: 60 },
    slots: [slot('2026-03-14T10:00:00Z', 60)],
    rejected: [
      rejected('2026-03-14T09:00:00Z', 60, [reason('outside_working_hours')]),
      rejected('2026-03-14T11:00:00Z', 60, [reason('blocked', exceptionIdOf(202))]),
      rejected('2026-03-14T12:00:00Z', 60, [reason('outside_working_hours')]),
    ],
  },
  {
    name: 'several agents with respectWorkingHours=false: ordered by start, then agent',
    records: [agent(1, 'UTC', nineToFive), agent(2, 'UTC', nineToFive), importedCall(203, 2, '2026-03-14T09:00:00.000Z', 60)],
    params: { fromUtc: '2026-03-14T08:00:00Z', toUtc: '2026-03-14T10:00:00Z', durationMinutes: 60, respectWorkingHours: false },
    slots: [slot('2026-03-14T08:00:00Z', 60, A1), slot('2026-03-14T08:00:00Z', 60, A2), slot('2026-03-14T09:00:00Z', 60, A1)],
    rejected: [rejected('2026-03-14T09:00:00Z', 60, [reason('conflicts_call', callIdOf(203))], A2)],
  },
];

/** The GraphQL explanation of the same request, in the REST names. */
async function graphqlExplained(a: ReturnType<typeof api>, appId: string, params: Scenario['params']) {
  const res = await a.gql(
    `query($appId: UUID!, $fromUtc: DateTime!, $toUtc: DateTime!, $durationMinutes: Int!, $stepMinutes: Int, $bufferBeforeMinutes: Int,
      $bufferAfterMinutes: Int, $respectWorkingHours: Boolean) {
      availabilityExplained(appId: $appId, fromUtc: $fromUtc, toUtc: $toUtc, durationMinutes: $durationMinutes, stepMinutes: $stepMinutes,
        bufferBeforeMinutes: $bufferBeforeMinutes, bufferAfterMinutes: $bufferAfterMinutes, respectWorkingHours: $respectWorkingHours) {
        slots { startUtc endUtc agentId }
        rejected { startUtc endUtc agentId reasons { code id kind } }
      }
    }`,
    { appId, ...params },
  );
  expect(res.body.errors).toBeUndefined();
  const { slots, rejected: refused } = res.body.data.availabilityExplained;
  return {
    slots,
    rejected: refused,
  };
}

describe('GET /video/{appId}/availability?explain=true', () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const tenant = await server.tenant({ scopes: ['scheduling:read'] });
      await importRecords(server, tenant.appId, scenario.records);
      const a = api(server, tenant);
      const res = await a.availability({ ...scenario.params, explain: true });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.body.data).toEqual({ slots: scenario.slots, rejected: scenario.rejected });
      // The slots of the default answer, and GraphQL's availabilityExplained to the letter.
      expect((await a.availability(scenario.params)).body.data.slots).toEqual(res.body.data.slots);
      expect(await graphqlExplained(a, tenant.appId, scenario.params)).toEqual(res.body.data);
    });
  }

  it('without explain, or with explain=false, the answer is data.slots alone, byte for byte', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00')), importedCall(204, 1, '2026-03-09T10:00:00.000Z', 60)]);
    const params = { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: '60' };
    const raw = async (query: Record<string, string>) => {
      const res = await fetch(`${api(server, tenant).base}/availability?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${tenant.accessToken}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const expected = JSON.stringify({ data: { slots: [slot('2026-03-09T09:00:00Z', 60), slot('2026-03-09T11:00:00Z', 60)] } });
    expect(await raw(params)).toBe(expected);
    expect(await raw({ ...params, explain: 'false' })).toBe(expected);
    // An empty value is the parameter left out, as for every optional parameter.
    expect(await raw({ ...params, explain: '' })).toBe(expected);
    expect(JSON.parse(await raw({ ...params, explain: 'true' })).data.rejected).toEqual([rejected('2026-03-09T10:00:00Z', 60, [reason('conflicts_call', callIdOf(204))])]);
  });

  it('explain=true with every candidate a slot answers an empty rejected list', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    const res = await api(server, tenant).availability({ fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T11:00:00Z', durationMinutes: 60, explain: true });
    expect(res.body).toEqual({ data: { slots: [slot('2026-03-09T09:00:00Z', 60), slot('2026-03-09T10:00:00Z', 60)], rejected: [] } });
  });
});
