import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { AppError } from '../../src/errors/app-error.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

/*
 * Zones Node's ICU knows and the database's zone data does not: each would be a 500 where it
 * reaches `at time zone`, so it is refused as input, naming the field, wherever a zone goes into
 * SQL or storage.
 */

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read', 'scheduling:write', 'scheduling:read'] } });
const zones = ['US/Pacific-New', 'Canada/East-Saskatchewan'];

describe('time zones the database does not know', () => {
  it('Node knows them (else this tests nothing)', () => {
    for (const zone of zones) expect(() => new Intl.DateTimeFormat('en-US', { timeZone: zone })).not.toThrow();
  });

  it.each(zones)('daily metrics over REST: 400 naming timezone (%s)', async (zone) => {
    const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/metrics/daily?timezone=${encodeURIComponent(zone)}`, { token: tenant.accessToken });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'validation_error', details: [{ field: 'timezone', code: 'invalid_value' }] });
  });

  it.each(zones)('daily metrics over GraphQL: validation_error naming timezone (%s)', async (zone) => {
    const res = await gql(server.url, tenant.accessToken, 'query($a: UUID!, $z: String) { dailyMetrics(appId: $a, timezone: $z) { date } }', { a: tenant.appId, z: zone });
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field: 'timezone', code: 'invalid_value' }] });
  });

  it.each(zones)("an agent's zone (%s)", async (zone) => {
    const res = await gql(server.url, tenant.accessToken, 'mutation($a: UUID!, $i: AgentInput!) { saveAgent(appId: $a, input: $i) { id: agentId } }', {
      a: tenant.appId,
      i: { name: 'Ada', timezone: zone },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_request', details: [{ field: 'input.timezone', code: 'invalid_value' }] });
  });

  it.each(zones)("a guest's zone (%s)", async (zone) => {
    const res = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls`, {
      method: 'POST',
      token: tenant.accessToken,
      json: { scheduledAtUtc: '2030-01-07T15:00:00.000Z', durationMinutes: 30, guestName: 'G', guestTimezone: zone },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details?.[0], JSON.stringify(res.body)).toMatchObject({ field: 'guestTimezone', code: 'invalid_value' });
  });

  it.each(zones)("an app's zone (%s)", async (zone) => {
    const refused = await createApp(server.runtime.database.db, { name: 'Zone', timezone: zone }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).details?.[0]).toMatchObject({ field: 'timezone', code: 'invalid_value' });
  });

  it('zones both know still work, in any case', async () => {
    for (const zone of ['America/New_York', 'asia/kolkata', 'UTC']) {
      const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/metrics/daily?timezone=${encodeURIComponent(zone)}`, { token: tenant.accessToken });
      expect(res.status, zone).toBe(200);
    }
  });
});
