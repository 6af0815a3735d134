import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, codeOf, everyDay, futureDay, importedCall, importRecords } from './fixtures.js';

const { server } = useServer();

describe('GraphQL: agents, hours, exceptions and DND', () => {
  it('bad input is invalid_request with field paths; unknown ids not_found; an agent with calls cannot be deleted', async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', {}), importedCall(1, 1, '2026-03-09T10:00:00.000Z')]);
    const badZone = await a.gql(`mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "X", timezone: "Moon/Base" }) { id: agentId } }`, { app: tenant.appId });
    expect(codeOf(badZone)).toBe('invalid_request');
    expect(badZone.body.errors![0]!.extensions!.details).toEqual([{ field: 'input.timezone', code: 'invalid_value', message: 'must be an IANA time zone' }]);
    const badHours = await a.gql(`mutation($app: UUID!, $id: UUID!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: { mon: [["9am", "5pm"]] }) { id: agentId } }`, {
      app: tenant.appId,
      id: agentIdOf(1),
    });
    expect(codeOf(badHours)).toBe('invalid_request');
    expect(badHours.body.errors![0]!.extensions!.details.map((d: { field: string }) => d.field)).toEqual(['workingHours.mon.0.0', 'workingHours.mon.0.1']);
    // A key that is not a day is refused, `__proto__` (which JSON.parse makes an own key) included.
    for (const key of ['Mon', '__proto__']) {
      const unknownDay = await a.gql(`mutation($app: UUID!, $id: UUID!, $hours: JSON!) { setAgentWorkingHours(appId: $app, agentId: $id, workingHours: $hours) { id: agentId } }`, {
        app: tenant.appId,
        id: agentIdOf(1),
        hours: JSON.parse(`{"${key}": {"x": 1}, "mon": []}`),
      });
      expect(codeOf(unknownDay), key).toBe('invalid_request');
      expect(unknownDay.body.errors![0]!.extensions!.details, key).toContainEqual(expect.objectContaining({ field: `workingHours.${key}` }));
    }
    const reversed = await a.gql(
      `mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T05:00:00Z", endUtc: "2026-03-09T04:00:00Z") { id: windowId } }`,
      { app: tenant.appId, id: agentIdOf(1) },
    );
    expect(reversed.body.errors![0]!.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'endUtc' }] });
    const noAgent = await a.gql(
      `mutation($app: UUID!, $id: UUID!) { addDndWindow(appId: $app, agentId: $id, startUtc: "2026-03-09T03:00:00Z", endUtc: "2026-03-09T04:00:00Z") { id: windowId } }`,
      { app: tenant.appId, id: agentIdOf(9) },
    );
    expect(codeOf(noAgent)).toBe('invalid_request');
    expect(codeOf(await a.gql(`query($app: UUID!, $id: UUID!) { agent(appId: $app, id: $id) { id: agentId } }`, { app: tenant.appId, id: agentIdOf(9) }))).toBe('not_found');
    expect(codeOf(await a.gql(`mutation($app: UUID!, $id: UUID!) { deleteAgent(appId: $app, id: $id) { id: agentId } }`, { app: tenant.appId, id: agentIdOf(1) }))).toBe('conflict');
  });
});

describe('GraphQL: scheduled calls', () => {
  it("what the service refuses (a past start, an unknown agent) names the field under input, as the input's own checks do", async () => {
    const tenant = await server.tenant();
    const a = api(server, tenant);
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const detailsOf = (res: { body: { errors?: { message: string; extensions?: Record<string, any> }[] } }) => ({
      code: res.body.errors?.[0]?.extensions?.code,
      fields: res.body.errors?.[0]?.extensions?.details?.map((d: { field: string }) => d.field),
      message: res.body.errors?.[0]?.message,
    });
    const create = (input: string, at: string) =>
      a.gql(`mutation($app: UUID!, $at: DateTime!) { createScheduledCall(appId: $app, input: { scheduledAtUtc: $at, durationMinutes: 20, guestName: "Cy"${input} }) { id: callId } }`, {
        app: tenant.appId,
        at,
      });
    expect(detailsOf(await create('', '2020-01-01T10:00:00Z'))).toEqual({
      code: 'invalid_request',
      fields: ['input.scheduledAtUtc'],
      message: 'Invalid input: input.scheduledAtUtc: must be in the future',
    });
    const stranger = '"00000000-0000-4000-8000-000000000001"';
    expect(detailsOf(await create(`, assignedAgentId: ${stranger}`, futureDay(30, 9).toISOString()))).toMatchObject({ fields: ['input.assignedAgentId'] });
    const id = (await create('', futureDay(30, 9).toISOString())).body.data.createScheduledCall.id;
    const moved = await a.gql(`mutation($app: UUID!, $id: UUID!) { updateScheduledCall(appId: $app, id: $id, input: { assignedAgentId: ${stranger} }) { id: callId } }`, {
      app: tenant.appId,
      id,
    });
    expect(detailsOf(moved)).toMatchObject({ code: 'invalid_request', fields: ['input.assignedAgentId'] });
    // REST names the body's own paths.
    const rest = await a.create({ scheduledAtUtc: '2020-01-01T10:00:00Z', durationMinutes: 20, guestName: 'Cy' });
    expect(rest.status).toBe(400);
    expect(rest.body.error.details.map((d: { field: string }) => d.field)).toEqual(['scheduledAtUtc']);
    expect(rest.body.error.message).toBe('Invalid input: scheduledAtUtc: must be in the future');
  });
});
