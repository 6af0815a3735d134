import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, api, everyDay, importedCall, importRecords, slot } from './fixtures.js';

const { server } = useServer();


describe('GET /video/{appId}/availability: limits and bad input', () => {
  const valid = { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T17:00:00Z', durationMinutes: 60 };

  it('403 without scheduling:read or for another app; 401 without a token', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:write', 'messages:read'] });
    const other = await server.tenant({ scopes: ['scheduling:read'] });
    const noScope = await api(server, tenant).availability(valid);
    expect(noScope.status).toBe(403);
    expectErrorEnvelope(noScope.body, 'forbidden');
    const otherApp = await api(server, { appId: tenant.appId, accessToken: other.accessToken }).availability(valid);
    expect(otherApp.status).toBe(403);
    const anonymous = await api(server, { appId: tenant.appId, accessToken: '' }).availability(valid);
    expect(anonymous.status).toBe(401);
  });

  it("another app's agents, calls and exceptions never show", async () => {
    const mine = await server.tenant({ scopes: ['scheduling:read'] });
    const theirs = await server.tenant({ scopes: ['scheduling:read'] });
    // The same agent id in both apps: their busy call must not block mine.
    await importRecords(server, mine.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    await importRecords(server, theirs.appId, [agent(1, 'UTC', everyDay('09:00', '17:00')), agent(2, 'UTC', everyDay('09:00', '17:00')), importedCall(10, 1, '2026-03-09T09:00:00.000Z', 60)]);
    const res = await api(server, mine).availability({ fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T10:00:00Z', durationMinutes: 60 });
    expect(res.body.data.slots).toEqual([slot('2026-03-09T09:00:00Z', 60)]);
  });
});
