import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, allDay, booking, futureDay, tenantSetUp } from './fixtures.js';

// Booking policy through both APIs: set and read with GraphQL, enforced by availability, REST and
// GraphQL booking and REST reschedule alike, each refusal a 409 naming the code explain gives.

const { server } = useServer();
const setUp = tenantSetUp(server);

const SET_POLICY = `mutation ($appId: UUID!, $input: BookingPolicyInput!) {
  setBookingPolicy(appId: $appId, input: $input) { assignment rules { minimumNoticeMinutes horizonDays bufferBeforeMinutes bufferAfterMinutes maxCallsPerDay maxCallsPerWeek alignmentMinutes } }
}`;
const SET_AGENT = `mutation ($appId: UUID!, $agentId: UUID!, $input: AgentBookingPolicyInput!) {
  setAgentBookingPolicy(appId: $appId, agentId: $agentId, input: $input) { agentId bookingOverrides assignmentPriority assignmentWeight bookingRules { maxCallsPerDay bufferAfterMinutes } }
}`;
const CREATE = `mutation ($appId: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $appId, input: $input) { callId assignedAgentId } }`;

type Api = Awaited<ReturnType<typeof setUp>>['a'];
const codesOf = (details: { code: string }[] | undefined) => (details ?? []).map((d) => d.code);

describe('booking policy: set and read', () => {
  it('refuses out-of-range rules with a field path for each', async () => {
    const { tenant, a } = await setUp();
    const res = await a.gql(SET_POLICY, { appId: tenant.appId, input: { bufferBeforeMinutes: 2000, alignmentMinutes: 7, maxCallsPerDay: 0 } });
    expect(res.body.errors![0]!.extensions).toMatchObject({ code: 'invalid_request' });
    expect(res.body.errors![0]!.extensions!.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'input.alignmentMinutes',
      'input.bufferBeforeMinutes',
      'input.maxCallsPerDay',
    ]);
    expect(JSON.stringify(res.body.errors![0]!.extensions!.details)).toContain('must divide 1440');
  });

  it("reads the app's policy and an agent's rules in force, overrides and round-robin settings", async () => {
    const { tenant, a } = await setUp();
    const before = await a.gql(`query ($id: UUID!) { app(appId: $id) { bookingPolicy { assignment rules { minimumNoticeMinutes horizonDays } } } }`, { id: tenant.appId });
    expect(before.body.data.app.bookingPolicy).toEqual({ assignment: 'least_busy', rules: { minimumNoticeMinutes: 0, horizonDays: null } });
    const set = await a.gql(SET_POLICY, { appId: tenant.appId, input: { maxCallsPerDay: 3, bufferAfterMinutes: 10, assignment: 'round_robin' } });
    expect(set.body.data.setBookingPolicy).toEqual({
      assignment: 'round_robin',
      rules: { minimumNoticeMinutes: 0, horizonDays: null, bufferBeforeMinutes: 0, bufferAfterMinutes: 10, maxCallsPerDay: 3, maxCallsPerWeek: null, alignmentMinutes: null },
    });
    const agent = await a.gql(SET_AGENT, { appId: tenant.appId, agentId: agentIdOf(1), input: { maxCallsPerDay: null, priority: 4, weight: 300 } });
    expect(agent.body.data.setAgentBookingPolicy).toEqual({
      agentId: agentIdOf(1),
      bookingOverrides: { maxCallsPerDay: null },
      assignmentPriority: 4,
      assignmentWeight: 300,
      bookingRules: { maxCallsPerDay: null, bufferAfterMinutes: 10 },
    });
    const read = await a.gql(`query ($id: UUID!) { app(appId: $id) { agents { agentId bookingRules { maxCallsPerDay } } } }`, { id: tenant.appId });
    expect(read.body.data.app.agents).toEqual([
      { agentId: agentIdOf(1), bookingRules: { maxCallsPerDay: null } },
      { agentId: agentIdOf(2), bookingRules: { maxCallsPerDay: 3 } },
    ]);
    const unknown = await a.gql(SET_AGENT, { appId: tenant.appId, agentId: agentIdOf(99), input: {} });
    expect(unknown.body.errors![0]!.extensions!.code).toBe('not_found');
  });

  it("never lets a token set or read another app's policy, nor a read token set one", async () => {
    const { tenant, a } = await setUp();
    const other = await setUp();
    const foreign = await other.a.gql(SET_POLICY, { appId: tenant.appId, input: { maxCallsPerDay: 1 } });
    expect(foreign.body.errors![0]!.extensions!.code).toBe('forbidden');
    const foreignAgent = await other.a.gql(SET_AGENT, { appId: tenant.appId, agentId: agentIdOf(1), input: { weight: 5 } });
    expect(foreignAgent.body.errors![0]!.extensions!.code).toBe('forbidden');
    const reader = await server.client({ apps: [tenant.appId], scopes: ['scheduling:read'] });
    const readOnly = await a.gql(SET_POLICY, { appId: tenant.appId, input: { maxCallsPerDay: 1 } }, await reader.token());
    expect(readOnly.body.errors![0]!.extensions!.code).toBe('forbidden');
    // The other app's agent with the same id keeps its defaults.
    const mine = await a.gql(`query ($id: UUID!) { app(appId: $id) { bookingPolicy { rules { maxCallsPerDay } } agents { assignmentWeight } } }`, { id: tenant.appId });
    expect(mine.body.data.app).toEqual({ bookingPolicy: { rules: { maxCallsPerDay: null } }, agents: [{ assignmentWeight: 100 }, { assignmentWeight: 100 }] });
  });
});

describe('each rule refuses a booking and a reschedule with the reason availability explains', () => {
  const cases: { code: string; policy: object; target: Date; before?: (a: Api) => Promise<void> }[] = [
    { code: 'minimum_notice', policy: { minimumNoticeMinutes: 3 * 24 * 60 }, target: futureDay(1, 10) },
    { code: 'beyond_horizon', policy: { horizonDays: 8 }, target: futureDay(12, 10) },
    { code: 'misaligned', policy: { alignmentMinutes: 60 }, target: futureDay(3, 10, 30) },
    {
      code: 'buffer_overlap',
      policy: { bufferAfterMinutes: 30 },
      target: futureDay(3, 10, 30),
      before: async (a) => void expect((await a.create(booking(futureDay(3, 10), { assignedAgentId: agentIdOf(1) }))).status).toBe(201),
    },
    {
      code: 'daily_limit',
      policy: { maxCallsPerDay: 1 },
      target: futureDay(3, 15),
      before: async (a) => void expect((await a.create(booking(futureDay(3, 9), { assignedAgentId: agentIdOf(1) }))).status).toBe(201),
    },
    {
      code: 'weekly_limit',
      policy: { maxCallsPerWeek: 1 },
      target: futureDay(3, 15),
      before: async (a) => void expect((await a.create(booking(futureDay(3, 9), { assignedAgentId: agentIdOf(1) }))).status).toBe(201),
    },
  ];

  it.each(cases)('$code', async ({ code, policy, target, before }) => {
    const { tenant, a } = await setUp();
    // A call booked before the policy, two weeks out (another local day and week), to move into the refused slot.
    const mover = await a.create(booking(futureDay(14, 20), { assignedAgentId: agentIdOf(1) }));
    expect(mover.status).toBe(201);
    expect((await a.gql(SET_POLICY, { appId: tenant.appId, input: policy })).body.errors).toBeUndefined();
    await before?.(a);

    const explained = await a.availability({ fromUtc: target.toISOString(), toUtc: new Date(target.getTime() + 30 * 60_000).toISOString(), durationMinutes: 30, agentId: agentIdOf(1), explain: true });
    expect(explained.body.data.slots).toEqual([]);
    expect(explained.body.data.rejected[0].reasons.map((r: { code: string }) => r.code)).toEqual([code]);

    const rest = await a.create(booking(target, { assignedAgentId: agentIdOf(1) }));
    expect(rest.status).toBe(409);
    expect(rest.body.error.type).toBe('conflict');
    expect(rest.body.error.details).toEqual([{ field: 'scheduledAtUtc', code, message: expect.any(String) }]);

    const graphql = await a.gql(CREATE, { appId: tenant.appId, input: booking(target, { assignedAgentId: agentIdOf(1) }) });
    expect(graphql.body.errors![0]!.extensions).toMatchObject({ code: 'conflict', details: [{ field: 'input.scheduledAtUtc', code }] });

    const patch = await a.patch(mover.body.data.call.id, { scheduledAtUtc: target.toISOString() });
    expect(patch.status).toBe(409);
    expect(codesOf(patch.body.error.details)).toEqual([code]);

    // Without an agent: a rule of the clock refuses both agents alike; a rule of agent 1's
    // calendar leaves agent 2 to take the call.
    const anyAgent = await a.create(booking(target));
    if (before) {
      expect(anyAgent.body.data.call.assigned_agent_id).toBe(agentIdOf(2));
    } else {
      expect(anyAgent.status).toBe(409);
      expect(codesOf(anyAgent.body.error.details)).toEqual([code]);
    }
  });
});

describe('availability and booking agree with every rule on', () => {
  it('books the first slot availability offers and refuses the next candidate for the reason explain gives', async () => {
    const { tenant, a } = await setUp({ agents: [agent(1, 'America/New_York', allDay)] });
    const policy = { minimumNoticeMinutes: 60, horizonDays: 30, bufferBeforeMinutes: 15, bufferAfterMinutes: 15, maxCallsPerDay: 4, maxCallsPerWeek: 20, alignmentMinutes: 30 };
    expect((await a.gql(SET_POLICY, { appId: tenant.appId, input: policy })).body.errors).toBeUndefined();
    const from = futureDay(4, 14);
    const window = { fromUtc: from.toISOString(), toUtc: new Date(from.getTime() + 3 * 3600_000).toISOString(), durationMinutes: 30, stepMinutes: 15 };
    const offered = (await a.availability(window)).body.data.slots as { startUtc: string }[];
    expect(offered.map((s) => s.startUtc.slice(11, 16))).toEqual(['14:00', '14:30', '15:00', '15:30', '16:00', '16:30']);
    expect((await a.create(booking(new Date(offered[0]!.startUtc), { assignedAgentId: agentIdOf(1) }))).status).toBe(201);
    const explained = await a.availability({ ...window, explain: true });
    const next = (explained.body.data.rejected as { startUtc: string; reasons: { code: string }[] }[]).find((r) => r.startUtc.slice(11, 16) === '14:30')!;
    expect(next.reasons.map((r) => r.code)).toEqual(['buffer_overlap']);
    const refused = await a.create(booking(new Date(next.startUtc), { assignedAgentId: agentIdOf(1) }));
    expect(refused.status).toBe(409);
    expect(codesOf(refused.body.error.details)).toEqual(['buffer_overlap']);
    expect((await a.create(booking(futureDay(4, 15), { assignedAgentId: agentIdOf(1) }))).status).toBe(201);
  });
});

describe('round_robin assignment', () => {
  it('offers the higher priority first, then shares by weight, deterministically', async () => {
    const { tenant, a } = await setUp();
    expect((await a.gql(SET_POLICY, { appId: tenant.appId, input: { assignment: 'round_robin' } })).body.errors).toBeUndefined();
    await a.gql(SET_AGENT, { appId: tenant.appId, agentId: agentIdOf(2), input: { weight: 300 } });
    const assigned: string[] = [];
    for (const hour of [9, 10, 11, 12]) {
      const res = await a.create(booking(futureDay(6, hour)));
      expect(res.status).toBe(201);
      assigned.push(res.body.data.call.assigned_agent_id);
    }
    // Both at 0 calls: the larger weight; then 1/300 against 0/100; then 1/300 against 1/100, 2/300 against 1/100.
    expect(assigned).toEqual([agentIdOf(2), agentIdOf(1), agentIdOf(2), agentIdOf(2)]);
    // A priority above the others takes every call while it is free.
    await a.gql(SET_AGENT, { appId: tenant.appId, agentId: agentIdOf(1), input: { priority: 3 } });
    const res = await a.create(booking(futureDay(6, 13)));
    expect(res.body.data.call.assigned_agent_id).toBe(agentIdOf(1));
  });
});
