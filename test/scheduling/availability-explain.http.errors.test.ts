import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, importRecords } from './fixtures.js';

const { server } = useServer();

const valid = { fromUtc: '2026-03-09T09:00:00Z', toUtc: '2026-03-09T17:00:00Z', durationMinutes: 60 };

describe('GET /video/{appId}/availability?explain: bad input and limits', () => {
  for (const value of ['yes', '1', '0', 'TRUE', 'False', 'on', 'null', ' true']) {
    it(`explain=${JSON.stringify(value)} is invalid_request naming explain`, async () => {
      const tenant = await server.tenant({ scopes: ['scheduling:read'] });
      await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
      const res = await api(server, tenant).availability({ ...valid, explain: value });
      expect(res.status).toBe(400);
      expectErrorEnvelope(res.body, 'invalid_request');
      expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'explain', code: 'invalid_type' })]);
    });
  }

  it('a bad explain is reported with the other bad parameters at once', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    const res = await api(server, tenant).availability({ ...valid, durationMinutes: 'an hour', explain: 'maybe' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['durationMinutes', 'explain']);
  });

  it('with explain=true the other parameters are checked as without it', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    const a = api(server, tenant);
    const changes: Record<string, string | number>[] = [{ toUtc: '2026-03-09T08:00:00Z' }, { durationMinutes: 481 }, { agentId: agentIdOf(99) }, { fromUtc: 'tomorrow' }];
    for (const change of changes) {
      const plain = await a.availability({ ...valid, ...change });
      const explained = await a.availability({ ...valid, ...change, explain: true });
      expect(plain.status).toBe(400);
      expect(explained.status).toBe(400);
      expectErrorEnvelope(explained.body, 'invalid_request');
      expect({ message: explained.body.error.message, details: explained.body.error.details }).toEqual({ message: plain.body.error.message, details: plain.body.error.details });
    }
    // A misspelt name is refused, not read as the default answer.
    const misspelt = await a.availability({ ...valid, explained: true });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error.details).toEqual([{ field: 'explained', code: 'unrecognized', message: 'Unrecognized query parameter' }]);
  });

  it('the 400-candidate limit holds with explain=true: 400 pass (slots and rejected together), 401 do not', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    // Hours 09:00-17:00: most of the 400 candidates are rejected, so the rejected list is long.
    await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
    const a = api(server, tenant);
    // 2000 minutes at a 5-minute grid of 5-minute slots: 400 starts for one agent.
    const ok = await a.availability({ fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-10T09:20:00Z', durationMinutes: 5, explain: true });
    expect(ok.status).toBe(200);
    // 09:00-17:00 on the 9th is 96 slots, 09:00-09:20 on the 10th 4 more; the other 300 are rejected.
    expect(ok.body.data.slots).toHaveLength(100);
    expect(ok.body.data.rejected).toHaveLength(300);
    const over = await a.availability({ fromUtc: '2026-03-09T00:00:00Z', toUtc: '2026-03-10T09:25:00Z', durationMinutes: 5, explain: true });
    expect(over.status).toBe(400);
    expectErrorEnvelope(over.body, 'invalid_request');
    expect(over.body.error.details).toEqual([{ field: 'toUtc', code: 'too_big', message: 'the window yields 401 candidate slots, more than 400' }]);
  });
});
