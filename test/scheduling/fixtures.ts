import { gql, request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';

import { importRecords } from '../video/fixtures.js';

export { codeOf, importRecords } from '../video/fixtures.js';

const pad = (n: number) => String(n).padStart(12, '0');
export const agentIdOf = (n: number) => `00000000-0000-4000-8a00-${pad(n)}`;
export const callIdOf = (n: number) => `00000000-0000-4000-8c00-${pad(n)}`;
export const exceptionIdOf = (n: number) => `00000000-0000-4000-8e00-${pad(n)}`;
export const dndIdOf = (n: number) => `00000000-0000-4000-8d00-${pad(n)}`;

export const nineToFive = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']], sat: [], sun: [] };
export const everyDay = (from: string, to: string) =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [[from, to]]]));

export const agent = (n: number, timezone: string, working_hours: object, name = `Agent ${n}`) => ({
  type: 'agent',
  id: agentIdOf(n),
  name,
  timezone,
  working_hours,
});

export const importedCall = (n: number, agentN: number, scheduledAt: string, durationMinutes = 30, extra: object = {}) => ({
  type: 'scheduled_call',
  id: callIdOf(n),
  assigned_agent_id: agentIdOf(agentN),
  booking_source: 'import',
  guest_name: `Guest ${n}`,
  guest_phone: '+447700900123',
  guest_email: `guest${n}@example.com`,
  guest_timezone: 'Europe/London',
  scheduled_at: scheduledAt,
  duration_minutes: durationMinutes,
  app_timezone: 'UTC',
  status: 'scheduled',
  created_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/** A whole day from now, at a given UTC hour: a future instant for bookings. */
export function futureDay(daysAhead: number, hourUtc: number, minute = 0): Date {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + daysAhead);
  d.setUTCHours(hourUtc, minute, 0, 0);
  return d;
}

export function api(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>) {
  const base = `${server.url}/api/v1/video/${tenant.appId}`;
  return {
    base,
    availability: (params: Record<string, string | number | boolean>, token = tenant.accessToken) =>
      request(`${base}/availability?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`, { token }),
    create: (json: unknown, token = tenant.accessToken) => request(`${base}/scheduled-calls`, { method: 'POST', token, json }),
    get: (id: string, token = tenant.accessToken) => request(`${base}/scheduled-calls/${id}`, { token }),
    list: (query = '', token = tenant.accessToken) => request(`${base}/scheduled-calls${query}`, { token }),
    patch: (id: string, json: unknown, token = tenant.accessToken) => request(`${base}/scheduled-calls/${id}`, { method: 'PATCH', token, json }),
    cancel: (id: string, options: { json?: unknown; query?: string } = {}, token = tenant.accessToken) =>
      request(`${base}/scheduled-calls/${id}${options.query ?? ''}`, { method: 'DELETE', token, json: options.json }),
    gql: (query: string, variables: Record<string, unknown> = {}, token = tenant.accessToken) => gql(server.url, token, query, variables),
  };
}

export const allDay = everyDay('00:00', '24:00');

/** Makes a tenant with two agents working around the clock (agent 2 only when asked) and its api. */
export const tenantSetUp =
  (server: TestServer) =>
  async (options: { agents?: object[]; scopes?: Parameters<TestServer['tenant']>[0] } = {}) => {
    const tenant = await server.tenant(options.scopes);
    await importRecords(server, tenant.appId, options.agents ?? [agent(1, 'UTC', allDay), agent(2, 'UTC', allDay)]);
    return { tenant, a: api(server, tenant) };
  };

export const booking = (start: Date, extra: object = {}) => ({ scheduledAtUtc: start.toISOString(), durationMinutes: 30, guestName: 'Ann Lee', ...extra });

export const at = (iso: string) => new Date(iso).toISOString();
/** An expected availability slot of agent 1 unless told. */
export const slot = (start: string, minutes: number, agentId = agentIdOf(1)) => ({
  startUtc: at(start),
  endUtc: new Date(Date.parse(start) + minutes * 60_000).toISOString(),
  agentId,
});
