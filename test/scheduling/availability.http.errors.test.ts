import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, importRecords, nineToFive } from './fixtures.js';

const { server } = useServer();

const A1 = agentIdOf(1);

describe('GET /video/{appId}/availability: limits and bad input', () => {
  it('400 candidates pass, 401 are invalid_request, agents counted together', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), agent(2, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, tenant);
    // 2000 minutes at a 5-minute grid of 5-minute slots: 400 starts for one agent.
    const one = { fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-10T09:20:00Z', durationMinutes: 5, agentId: A1 };
    const ok = await a.availability(one);
    expect(ok.status).toBe(200);
    expect(ok.body.data.slots).toHaveLength(400);
    const over = await a.availability({ ...one, toUtc: '2026-03-10T09:25:00Z' });
    expect(over.status).toBe(400);
    expectErrorEnvelope(over.body, 'invalid_request');
    expect(over.body.error.message).toMatch(/401 candidate slots/);
    expect(over.body.error.details).toEqual([{ field: 'toUtc', code: 'too_big', message: 'the window yields 401 candidate slots, more than 400' }]);
    // Two agents: 200 starts each is 400 in all; 201 each is 402.
    expect((await a.availability({ fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-09T16:40:00Z', durationMinutes: 5 })).body.data.slots).toHaveLength(400);
    const both = await a.availability({ fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-09T16:45:00Z', durationMinutes: 5 });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/402 candidate slots/);
  });

  const valid = { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T17:00:00Z', durationMinutes: 60 };

  const bad: [string, Record<string, string | number | boolean | undefined>, string][] = [
    ['fromUtc missing', { fromUtc: undefined }, 'fromUtc'],
    ['toUtc missing', { toUtc: undefined }, 'toUtc'],
    ['durationMinutes missing', { durationMinutes: undefined }, 'durationMinutes'],
    ['fromUtc not a timestamp', { fromUtc: 'tomorrow' }, 'fromUtc'],
    ['fromUtc a date only', { fromUtc: '2026-03-09' }, 'fromUtc'],
    ['toUtc impossible', { toUtc: '2026-02-30T25:00:00Z' }, 'toUtc'],
    ['an empty range', { toUtc: '2026-03-09T09:00:00Z' }, 'toUtc'],
    ['a reversed range', { toUtc: '2026-03-09T08:00:00Z' }, 'toUtc'],
    ['durationMinutes below 5', { durationMinutes: 4 }, 'durationMinutes'],
    ['durationMinutes above 480', { durationMinutes: 481 }, 'durationMinutes'],
    ['durationMinutes not a number', { durationMinutes: 'an hour' }, 'durationMinutes'],
    ['durationMinutes fractional', { durationMinutes: 30.5 }, 'durationMinutes'],
    ['stepMinutes zero', { stepMinutes: 0 }, 'stepMinutes'],
    ['stepMinutes negative', { stepMinutes: -15 }, 'stepMinutes'],
    ['bufferBeforeMinutes negative', { bufferBeforeMinutes: -1 }, 'bufferBeforeMinutes'],
    ['bufferAfterMinutes not a number', { bufferAfterMinutes: 'x' }, 'bufferAfterMinutes'],
    ['respectWorkingHours not a boolean', { respectWorkingHours: 'yes' }, 'respectWorkingHours'],
    ['agentId not a UUID', { agentId: 'agent-1' }, 'agentId'],
    ['agentId of no agent', { agentId: agentIdOf(99) }, 'agentId'],
  ];

  for (const [name, change, field] of bad) {
    it(`invalid_request: ${name}`, async () => {
      const tenant = await server.tenant({ scopes: ['scheduling:read'] });
      await importRecords(server, tenant.appId, [agent(1, 'UTC', nineToFive)]);
      const params = Object.fromEntries(Object.entries({ ...valid, ...change }).filter(([, v]) => v !== undefined)) as Record<string, string>;
      const res = await api(server, tenant).availability(params);
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  }

  it('an appId that is not a UUID is invalid_request', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    const res = await api(server, { ...tenant, appId: 'not-a-uuid' }).availability(valid);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
  });
});
