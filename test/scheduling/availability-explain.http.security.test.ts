import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, callIdOf, dndIdOf, everyDay, exceptionIdOf, importedCall, importRecords, slot } from './fixtures.js';

const { server } = useServer();

const valid = { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T12:00:00Z', durationMinutes: 60, explain: true };

describe('GET /video/{appId}/availability?explain=true: scopes and tenancy', () => {
  it('403 without scheduling:read or for another app, before any bad input; 401 without a token', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:write', 'messages:read'] });
    const other = await server.tenant({ scopes: ['scheduling:read'] });
    const noScope = await api(server, tenant).availability(valid);
    expect(noScope.status).toBe(403);
    expectErrorEnvelope(noScope.body, 'forbidden');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="scheduling:read"');
    // A bad explain from a caller that may not ask is a 403 too, not a 400 that teaches the request.
    expect((await api(server, tenant).availability({ ...valid, explain: 'maybe' })).status).toBe(403);
    const otherApp = await api(server, { appId: tenant.appId, accessToken: other.accessToken }).availability(valid);
    expect(otherApp.status).toBe(403);
    expectErrorEnvelope(otherApp.body, 'forbidden');
    expect((await api(server, { appId: tenant.appId, accessToken: other.accessToken }).availability({ ...valid, explain: 'maybe' })).status).toBe(403);
    const anonymous = await api(server, { appId: tenant.appId, accessToken: '' }).availability(valid);
    expect(anonymous.status).toBe(401);
  });

  it("another app's agents, calls, exceptions and do-not-disturb windows never show, as slots or as reasons", async () => {
    const mine = await server.tenant({ scopes: ['scheduling:read'] });
    const theirs = await server.tenant({ scopes: ['scheduling:read'] });
    // The same agent id in both apps: their call, exception and window must not reject my candidates.
    await importRecords(server, mine.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    await importRecords(server, theirs.appId, [
      agent(1, 'UTC', everyDay('09:00', '17:00')),
      agent(2, 'UTC', everyDay('00:00', '24:00')),
      importedCall(301, 1, '2026-03-09T09:00:00.000Z', 60),
      { type: 'availability_exception', id: exceptionIdOf(301), agent_id: agentIdOf(1), kind: 'blocked', start_utc: '2026-03-09T10:00:00Z', end_utc: '2026-03-09T11:00:00Z' },
      { type: 'dnd', id: dndIdOf(301), agent_id: agentIdOf(1), start_utc: '2026-03-09T11:00:00Z', end_utc: '2026-03-09T12:00:00Z' },
    ]);
    const res = await api(server, mine).availability(valid);
    expect(res.body.data).toEqual({ slots: ['09', '10', '11'].map((h) => slot(`2026-03-09T${h}:00:00Z`, 60)), rejected: [] });
    // Their own request sees their own reasons: the records are there, only not mine.
    const theirsRes = await api(server, theirs).availability({ ...valid, agentId: agentIdOf(1) });
    expect(theirsRes.body.data.rejected.map((r: { reasons: { id: string }[] }) => r.reasons[0]!.id)).toEqual([callIdOf(301), exceptionIdOf(301), dndIdOf(301)]);
  });
});
