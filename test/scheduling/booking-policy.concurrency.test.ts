import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, allDay, booking, futureDay, tenantSetUp } from './fixtures.js';

// Buffers and limits hold under concurrency. On PostgreSQL the creates race on separate
// connections: buffers are held by the exclusion constraint on buffered ranges, limits by the
// decision taken under the agent's lock. On PGlite they are serialized and the engine decides.

const { server } = useServer({ overrides: { DB_POOL_MAX: '10', CLIENT_MAX_CONCURRENT: '64' } });
const setUp = tenantSetUp(server);

const PARALLEL = 8;
const SET_POLICY = `mutation ($appId: UUID!, $input: BookingPolicyInput!) { setBookingPolicy(appId: $appId, input: $input) { assignment } }`;
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort();

describe('booking policy under concurrency', () => {
  it(`${PARALLEL} parallel creates of back-to-back calls whose buffers all overlap: one 201, the rest 409 buffer_overlap`, async () => {
    const { tenant, a } = await setUp({ agents: [agent(1, 'UTC', allDay)] });
    // Each call keeps 4 hours after it: calls 30 minutes apart never overlap, their buffers all do.
    await a.gql(SET_POLICY, { appId: tenant.appId, input: { bufferAfterMinutes: 240 } });
    const start = futureDay(20, 8);
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => a.create(booking(new Date(start.getTime() + i * 30 * 60_000), { assignedAgentId: agentIdOf(1) }))),
    );
    expect(statuses(responses)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
    for (const refused of responses.filter((r) => r.status === 409)) {
      expect(refused.body.error.details.map((d: { code: string }) => d.code)).toEqual(['buffer_overlap']);
    }
    expect((await a.list('?status=scheduled')).body.data).toHaveLength(1);
  });

  it(`${PARALLEL} parallel PATCHes next to one call, inside its buffer: every one 409, nothing moved`, async () => {
    const { tenant, a } = await setUp({ agents: [agent(1, 'UTC', allDay)] });
    const ids: string[] = [];
    for (let i = 0; i < PARALLEL; i++) ids.push((await a.create(booking(futureDay(25, i), { assignedAgentId: agentIdOf(1) }))).body.data.call.id);
    await a.gql(SET_POLICY, { appId: tenant.appId, input: { bufferBeforeMinutes: 60, bufferAfterMinutes: 60 } });
    const anchor = await a.create(booking(futureDay(26, 12), { assignedAgentId: agentIdOf(1) }));
    expect(anchor.status).toBe(201);
    // All land at 13:00-13:30 or later within the hour after the anchor's end, one each.
    const responses = await Promise.all(ids.map((id, i) => a.patch(id, { scheduledAtUtc: futureDay(26, 12, 30 + i * 5).toISOString() })));
    expect(statuses(responses)).toEqual(Array(PARALLEL).fill(409));
  });

  it(`${PARALLEL} parallel creates at different hours of one day with a limit of two a day: two 201, the rest 409 daily_limit`, async () => {
    const { tenant, a } = await setUp({ agents: [agent(1, 'UTC', allDay)] });
    await a.gql(SET_POLICY, { appId: tenant.appId, input: { maxCallsPerDay: 2 } });
    const responses = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => a.create(booking(futureDay(21, 8 + i), { assignedAgentId: agentIdOf(1) }))));
    expect(statuses(responses)).toEqual([201, 201, ...Array(PARALLEL - 2).fill(409)]);
    for (const refused of responses.filter((r) => r.status === 409)) {
      expect(refused.body.error.details.map((d: { code: string }) => d.code)).toEqual(['daily_limit']);
    }
  });

  it(`${PARALLEL * 2} parallel creates without an agent, round_robin over two agents with a weekly limit of three each: six win`, async () => {
    const { tenant, a } = await setUp();
    await a.gql(SET_POLICY, { appId: tenant.appId, input: { maxCallsPerWeek: 3, assignment: 'round_robin' } });
    const responses = await Promise.all(Array.from({ length: PARALLEL * 2 }, (_, i) => a.create(booking(futureDay(22, 0, i * 30)))));
    expect(statuses(responses)).toEqual([...Array(6).fill(201), ...Array(PARALLEL * 2 - 6).fill(409)]);
    const byAgent = responses.filter((r) => r.status === 201).map((r) => r.body.data.call.assigned_agent_id).sort();
    expect(byAgent).toEqual([agentIdOf(1), agentIdOf(1), agentIdOf(1), agentIdOf(2), agentIdOf(2), agentIdOf(2)]);
  });
});
