import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// A request with several bad parameters hears of all of them at once, a value outside a closed
// set included: the enum is checked as the variables are coerced, the others by the field's
// argument checks, which the executor never reaches once coercion fails. Details come in the
// order of the document's variables (the route's parameters).

const { server, tenant } = useServer({ tenant: true });

const get = (path: string) => request(`${server.url}/api/v1${path}`, { token: tenant.accessToken });
const detail = (field: string, code: string) => ({ field, code, message: expect.any(String) });

describe('every invalid parameter is reported in details', () => {
  it.each([
    [
      'messages: status, limit, cursor',
      (app: string) => `/analytics/${app}/messages?status=lost&limit=0&cursor=${'x'.repeat(600)}`,
      'validation_error',
      [detail('limit', 'too_small'), detail('cursor', 'too_long'), detail('status', 'invalid_value')],
    ],
    [
      'messages: direction, status and a long channel',
      (app: string) => `/analytics/${app}/messages?direction=sideways&status=lost&channel=${'x'.repeat(101)}&limit=201`,
      'validation_error',
      [detail('limit', 'too_big'), detail('status', 'invalid_value'), detail('direction', 'invalid_value'), detail('channel', 'too_long')],
    ],
    [
      'campaigns: status and limit',
      (app: string) => `/analytics/${app}/campaigns?status=archived&limit=0`,
      'validation_error',
      [detail('limit', 'too_small'), detail('status', 'invalid_value')],
    ],
    [
      'scheduled calls: status and limit',
      (app: string) => `/video/${app}/scheduled-calls?status=pending&limit=500`,
      'invalid_request',
      [detail('limit', 'too_big'), detail('status', 'invalid_value')],
    ],
  ])('%s', async (_name, path, type, details) => {
    const res = await get(path(tenant.appId));
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, type);
    expect(res.body.error.details).toEqual(details);
  });

  it('campaign search: a bad status in the body and a bad limit', async () => {
    const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/campaigns/search`, {
      method: 'POST',
      token: tenant.accessToken,
      json: { limit: 0, filter: { status: ['nope'], name: 'x'.repeat(300) } },
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toEqual([detail('limit', 'too_small'), detail('filter.status.0', 'invalid_value'), detail('filter.name', 'too_long')]);
  });

  it('PATCH a scheduled call: a malformed agent id and an empty guest name, both named', async () => {
    const path = `/video/${tenant.appId}/scheduled-calls/00000000-0000-4000-8c00-000000000001`;
    const res = await request(`${server.url}/api/v1${path}`, { method: 'PATCH', token: tenant.accessToken, json: { assignedAgentId: 'x', guestName: '', guestTimezone: 'Europe/Atlantis' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details).toEqual([detail('assignedAgentId', 'invalid_format'), detail('guestName', 'too_small'), detail('guestTimezone', 'invalid_value')]);
  });
});
