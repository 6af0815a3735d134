import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, callIdOf, dndIdOf, everyDay, futureDay, importedCall, importRecords } from './fixtures.js';

const { server } = useServer();

const codeOf = (res: { body: { errors?: { extensions?: Record<string, any> }[] } }) => res.body.errors?.[0]?.extensions?.code;
const deleteAgent = (a: ReturnType<typeof api>, appId: string, id: string) =>
  a.gql(`mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id: agentId name deletedAt } }`, { app: appId, id });
const agentQuery = (a: ReturnType<typeof api>, appId: string, id: string) => a.gql(`query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { id: agentId } }`, { app: appId, id });
const agentIds = async (a: ReturnType<typeof api>, appId: string) =>
  (await a.gql(`query($app: UUID!) { agents(appId: $app) { id: agentId } }`, { app: appId })).body.data.agents.map((x: { id: string }) => x.id);

describe('deleteAgent', () => {
  it('an agent without calls is removed; deleting it again is not_found', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    const deleted = await deleteAgent(a, tenant.appId, agentIdOf(1));
    expect(deleted.body.data.deleteAgent).toEqual({ id: agentIdOf(1), name: 'Agent 1', deletedAt: null });
    expect(codeOf(await agentQuery(a, tenant.appId, agentIdOf(1)))).toBe('not_found');
    expect(codeOf(await deleteAgent(a, tenant.appId, agentIdOf(1)))).toBe('not_found');
  });

  it('an agent with a call still scheduled is 409; once its calls are final it is kept as deleted and gone from every lookup', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [
      agent(1, 'UTC', everyDay('00:00', '24:00')),
      agent(2, 'UTC', everyDay('00:00', '24:00')),
      importedCall(1, 1, '2026-03-09T10:00:00.000Z', 30, { status: 'completed' }),
      { type: 'dnd', id: dndIdOf(1), agent_id: agentIdOf(1), start_utc: futureDay(5, 1).toISOString(), end_utc: futureDay(5, 2).toISOString() },
    ]);
    const booked = await a.create({ scheduledAtUtc: futureDay(3, 10).toISOString(), durationMinutes: 30, guestName: 'Ann', assignedAgentId: agentIdOf(1) });
    expect(booked.status).toBe(201);
    const refused = await deleteAgent(a, tenant.appId, agentIdOf(1));
    expect(codeOf(refused)).toBe('conflict');
    expect(refused.body.errors![0]!.message).toMatch(/scheduled calls/);

    expect((await a.cancel(booked.body.data.call.id, { json: { reason: 'agent leaving' } })).status).toBe(200);
    const deleted = await deleteAgent(a, tenant.appId, agentIdOf(1));
    expect(deleted.body.errors).toBeUndefined();
    expect(Date.parse(deleted.body.data.deleteAgent.deletedAt)).toBeGreaterThan(Date.now() - 60_000);

    // Gone: lookups, the list, calendars, availability, bookings.
    expect(codeOf(await agentQuery(a, tenant.appId, agentIdOf(1)))).toBe('not_found');
    expect(codeOf(await deleteAgent(a, tenant.appId, agentIdOf(1)))).toBe('not_found');
    expect(await agentIds(a, tenant.appId)).toEqual([agentIdOf(2)]);
    const window = { fromUtc: futureDay(3, 9).toISOString(), toUtc: futureDay(3, 11).toISOString(), durationMinutes: 30, stepMinutes: 30 };
    const only = await a.availability({ ...window, agentId: agentIdOf(1) });
    expect(only.status).toBe(400);
    expect(only.body.error.details).toEqual([expect.objectContaining({ field: 'agentId' })]);
    const all = await a.availability(window);
    expect(new Set(all.body.data.slots.map((s: { agentId: string }) => s.agentId))).toEqual(new Set([agentIdOf(2)]));
    const onDeleted = await a.create({ scheduledAtUtc: futureDay(3, 10).toISOString(), durationMinutes: 30, guestName: 'Bo', assignedAgentId: agentIdOf(1) });
    expect(onDeleted.status).toBe(400);
    expect(onDeleted.body.error.details[0].field).toBe('assignedAgentId');
    const auto = await a.create({ scheduledAtUtc: futureDay(3, 10).toISOString(), durationMinutes: 30, guestName: 'Cy' });
    expect(auto.body.data.call.assigned_agent_id).toBe(agentIdOf(2));
    expect((await a.patch(auto.body.data.call.id, { assignedAgentId: agentIdOf(1) })).body.error.details[0].field).toBe('assignedAgentId');
    const hours = await a.gql(`mutation($app: UUID!, $id: UUID!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: {}) { id: agentId } }`, { app: tenant.appId, id: agentIdOf(1) });
    expect(codeOf(hours)).toBe('not_found');
    const dnd = await a.gql(
      `mutation($app: UUID!, $id: UUID!, $s: DateTime!, $e: DateTime!) { addDndWindow(appId: $app, agentId: $id, startUtc: $s, endUtc: $e) { id: windowId } }`,
      { app: tenant.appId, id: agentIdOf(1), s: futureDay(6, 1).toISOString(), e: futureDay(6, 2).toISOString() },
    );
    expect(codeOf(dnd)).toBe('invalid_request');

    // History stays: the calls on record still name the agent.
    expect((await a.get(booked.body.data.call.id)).body.data.call.assigned_agent_id).toBe(agentIdOf(1));
    expect((await a.get(callIdOf(1))).body.data.call.assigned_agent_id).toBe(agentIdOf(1));

    // The importer refuses what would bring data back under a deleted agent, but not history.
    await expect(
      importRecords(server, tenant.appId, [{ type: 'dnd', id: dndIdOf(2), agent_id: agentIdOf(1), start_utc: futureDay(7, 1).toISOString(), end_utc: futureDay(7, 2).toISOString() }]),
    ).rejects.toThrow(/deleted/);
    await expect(importRecords(server, tenant.appId, [importedCall(2, 1, futureDay(8, 10).toISOString())])).rejects.toThrow(/deleted/);
    await importRecords(server, tenant.appId, [importedCall(3, 1, '2026-03-10T10:00:00.000Z', 30, { status: 'completed' })]);

    // Saving (or importing) the agent's id again brings it back, without its old DND windows.
    const saved = await a.gql(`mutation($app: UUID!, $id: UUID!) { saveAgent(appId: $app, input: { id: $id, name: "Agent 1", timezone: "UTC" }) { id: agentId deletedAt } }`, {
      app: tenant.appId,
      id: agentIdOf(1),
    });
    expect(saved.body.data.saveAgent).toEqual({ id: agentIdOf(1), deletedAt: null });
    expect(await agentIds(a, tenant.appId)).toEqual([agentIdOf(1), agentIdOf(2)]);
    const windows = await a.gql(`query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { dndWindows { id: windowId } } }`, { app: tenant.appId, id: agentIdOf(1) });
    expect(windows.body.data.agent.dndWindows).toEqual([]);
    expect((await deleteAgent(a, tenant.appId, agentIdOf(1))).body.data.deleteAgent.deletedAt).not.toBeNull();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    expect(await agentIds(a, tenant.appId)).toEqual([agentIdOf(1), agentIdOf(2)]);
  });

  it('a booking racing the deletion of its agent: one of them wins, never a scheduled call on a deleted agent', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    for (let round = 1; round <= 6; round++) {
      await importRecords(server, tenant.appId, [agent(round, 'UTC', everyDay('00:00', '24:00')), importedCall(200 + round, round, '2026-03-09T10:00:00.000Z', 30, { status: 'completed' })]);
      const [booking, deletion] = await Promise.all([
        a.create({ scheduledAtUtc: futureDay(4, 8 + round).toISOString(), durationMinutes: 30, guestName: `G${round}`, assignedAgentId: agentIdOf(round) }),
        deleteAgent(a, tenant.appId, agentIdOf(round)),
      ]);
      const booked = booking.status === 201;
      const deleted = deletion.body.errors === undefined;
      expect([booked, deleted], JSON.stringify([booking.body, deletion.body])).not.toEqual([true, true]);
      expect(booked || deleted).toBe(true);
      if (!booked) expect([400, 409]).toContain(booking.status);
      if (!deleted) expect(codeOf(deletion)).toBe('conflict');
    }
  });

  it('an import of a scheduled call racing the deletion of its agent: one of them wins', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    for (let round = 1; round <= 8; round++) {
      const n = 20 + round;
      await importRecords(server, tenant.appId, [agent(n, 'UTC', everyDay('00:00', '24:00')), importedCall(300 + round, n, '2026-03-09T10:00:00.000Z', 30, { status: 'completed' })]);
      const [imported, deletion] = await Promise.all([
        importRecords(server, tenant.appId, [importedCall(400 + round, n, futureDay(9, 8 + round).toISOString())]).then(
          () => true,
          (error: unknown) => {
            expect(String(error)).toMatch(/deleted/);
            return false;
          },
        ),
        deleteAgent(a, tenant.appId, agentIdOf(n)),
      ]);
      const deleted = deletion.body.errors === undefined;
      expect([imported, deleted], JSON.stringify(deletion.body)).not.toEqual([true, true]);
      expect(imported || deleted).toBe(true);
      if (!deleted) expect(codeOf(deletion)).toBe('conflict');
    }
  });

  it("another app's token cannot delete the agent", async () => {
    const tenant = await server.tenant();
    const other = await server.tenant();
    await importRecords(server, tenant.appId, [agent(1, 'UTC', {})]);
    const foreign = await deleteAgent(api(server, other), tenant.appId, agentIdOf(1));
    expect(codeOf(foreign)).toBe('forbidden');
    const ownApp = await deleteAgent(api(server, other), other.appId, agentIdOf(1));
    expect(codeOf(ownApp)).toBe('not_found');
    expect(await agentIds(api(server, tenant), tenant.appId)).toEqual([agentIdOf(1)]);
  });
});
