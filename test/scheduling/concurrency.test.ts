import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, futureDay, importRecords } from './fixtures.js';

// Double booking is impossible by construction. On PostgreSQL (CI's second
// run) the requests really race on separate connections and the exclusion constraint decides;
// on PGlite they are serialized and the slot test decides. Either way exactly one wins.

// One client races itself here: its in-flight limit is raised above the race's width.
const { server } = useServer({ overrides: { DB_POOL_MAX: '10', CLIENT_MAX_CONCURRENT: '64' } });

const PARALLEL = 8;
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort();

describe('no double booking under concurrency', () => {
  it(`${PARALLEL} parallel creates into one slot of one agent: one 201, the rest 409`, async () => {
    const tenant = await server.tenant();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, tenant);
    const start = futureDay(20, 10);
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        a.create({ scheduledAtUtc: new Date(start.getTime() + i * 60_000).toISOString(), durationMinutes: 30, guestName: `G${i}`, assignedAgentId: agentIdOf(1) }),
      ),
    );
    expect(statuses(responses)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
    expect((await a.list('?status=scheduled')).body.data).toHaveLength(1);
  });

  it(`${PARALLEL} parallel creates without an agent over two agents: two win`, async () => {
    const tenant = await server.tenant();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), agent(2, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, tenant);
    const start = futureDay(21, 10).toISOString();
    const responses = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => a.create({ scheduledAtUtc: start, durationMinutes: 30, guestName: `G${i}` })));
    expect(statuses(responses)).toEqual([201, 201, ...Array(PARALLEL - 2).fill(409)]);
    const agents = responses.filter((r) => r.status === 201).map((r) => r.body.data.call.assigned_agent_id).sort();
    expect(agents).toEqual([agentIdOf(1), agentIdOf(2)]);
  });

  // On PostgreSQL, creates that lose the first agent race each other for the second at the
  // exclusion constraint, where two of them can wait for each other: the server fails one with
  // deadlock_detected, which must end as a 409 or a booking, never a 500. More requests and
  // rounds than above make that interleaving likely in every run.
  it(`${PARALLEL * 3} parallel creates without an agent over two agents, in 4 slots: two win each`, async () => {
    const tenant = await server.tenant();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), agent(2, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, tenant);
    for (const hour of [9, 11, 13, 15]) {
      const start = futureDay(24, hour).toISOString();
      const responses = await Promise.all(Array.from({ length: PARALLEL * 3 }, (_, i) => a.create({ scheduledAtUtc: start, durationMinutes: 30, guestName: `G${i}` })));
      expect(statuses(responses), start).toEqual([201, 201, ...Array(PARALLEL * 3 - 2).fill(409)]);
      expect(responses.filter((r) => r.status === 409).every((r) => r.body.error.type === 'conflict')).toBe(true);
    }
    expect((await a.list('?status=scheduled')).body.data).toHaveLength(8);
  });

  it(`${PARALLEL} parallel PATCHes of different calls into one slot: one 200, the rest 409 and unchanged`, async () => {
    const tenant = await server.tenant();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, tenant);
    const ids: string[] = [];
    for (let i = 0; i < PARALLEL; i++) {
      const res = await a.create({ scheduledAtUtc: futureDay(22, i).toISOString(), durationMinutes: 30, guestName: `G${i}`, assignedAgentId: agentIdOf(1) });
      ids.push(res.body.data.call.id);
    }
    const target = futureDay(23, 15).toISOString();
    const responses = await Promise.all(ids.map((id) => a.patch(id, { scheduledAtUtc: target })));
    expect(statuses(responses)).toEqual([200, ...Array(PARALLEL - 1).fill(409)]);
    const calls = (await a.list()).body.data as { scheduled_at: string }[];
    expect(calls.filter((c) => c.scheduled_at === target)).toHaveLength(1);
    // The losers have no rescheduled event.
    const timelines = await Promise.all(ids.map(async (id) => (await a.get(id)).body.data.events.length));
    expect(timelines.sort()).toEqual([...Array(PARALLEL - 1).fill(1), 2]);
  });
});
