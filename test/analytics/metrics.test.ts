import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read'] } });
const get = (path: string) => request(`${server.url}/api/v1/analytics/${tenant.appId}${path}`, { token: tenant.accessToken });

const at = (iso: string, n: number, overrides: Record<string, unknown> = {}) =>
  message(n, { created_at: iso, direction: 'outbound', cost: 0.5, ...overrides });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [
    // New York springs forward on 2026-03-08 (02:00 EST -> 03:00 EDT).
    at('2026-03-08T04:30:00Z', 1, { status: 'read' }), // 03-07 23:30 EST
    at('2026-03-08T05:30:00Z', 2, { status: 'delivered' }), // 03-08 00:30 EST
    at('2026-03-09T03:30:00Z', 3, { status: 'failed' }), // 03-08 23:30 EDT
    at('2026-03-09T04:30:00Z', 4, { status: 'sent', user_phone: '447700000002' }), // 03-09 00:30 EDT
    at('2026-03-09T04:40:00Z', 5, { status: 'read', direction: 'inbound' }), // inbound: never counted
  ]);
});

describe('GET /analytics/{appId}/metrics/daily', () => {
  it('buckets by local day across a DST change, every day present', async () => {
    const res = await get('/metrics/daily?startDate=2026-03-07T05:00:00Z&endDate=2026-03-11T04:00:00Z&timezone=America/New_York');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { date: '2026-03-07', sent: 1, delivered: 1, read: 1, failed: 0, cost: 0.5 },
      { date: '2026-03-08', sent: 1, delivered: 1, read: 0, failed: 1, cost: 1 },
      { date: '2026-03-09', sent: 1, delivered: 0, read: 0, failed: 0, cost: 0.5 },
      { date: '2026-03-10', sent: 0, delivered: 0, read: 0, failed: 0, cost: 0 },
    ]);
  });

  it('in UTC the same messages fall on other days', async () => {
    const res = await get('/metrics/daily?startDate=2026-03-08T00:00:00Z&endDate=2026-03-10T00:00:00Z');
    expect(res.body.data.map((d: any) => [d.date, d.sent + d.failed])).toEqual([
      ['2026-03-08', 2],
      ['2026-03-09', 2],
    ]);
  });

  it('defaults to the last 30 days', async () => {
    const res = await get('/metrics/daily');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(30);
    expect(res.body.data.length).toBeLessThanOrEqual(31);
  });

  it.each([
    ['?timezone=Mars/Olympus', 'timezone'],
    ['?startDate=yesterday', 'startDate'],
    ['?startDate=2026-03-10T00:00:00Z&endDate=2026-03-01T00:00:00Z', 'endDate'],
    ['?startDate=2020-01-01T00:00:00Z&endDate=2026-01-01T00:00:00Z', 'endDate'],
  ])('%s is 400 validation_error on %s', async (query, field) => {
    const res = await get(`/metrics/daily${query}`);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details[0].field).toBe(field);
  });
});

describe('GET /analytics/{appId}/metrics/summary', () => {
  it('sums the outbound funnel over a half-open range with distinct contacts', async () => {
    const res = await get('/metrics/summary?startDate=2026-03-08T00:00:00Z&endDate=2026-03-09T04:30:00Z');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ sent: 2, delivered: 2, read: 1, failed: 1, cost: 1.5, contacts: 3 });
  });

  it('GraphQL summaryMetrics agrees', async () => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { summaryMetrics(appId: $app, startDate: "2026-03-01T00:00:00Z", endDate: "2026-03-31T00:00:00Z") { sent delivered read failed cost contacts } }`, { app: tenant.appId });
    const rest = await get('/metrics/summary?startDate=2026-03-01T00:00:00Z&endDate=2026-03-31T00:00:00Z');
    expect(res.body.data.summaryMetrics).toEqual(rest.body.data);
  });
});

describe('metrics ranges with one end given', () => {
  const DAY = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  it('a start alone runs until now; an end alone has the 30 days before it; over 400 days is refused', async () => {
    const own = await server.tenant({ scopes: ['analytics:read'] });
    const now = Date.now();
    await importRecords(server, own.appId, [at(iso(now - 59 * DAY), 1, { status: 'sent' }), at(iso(now - 10 * DAY), 2, { status: 'sent' })]);
    const summary = (query: string) => request(`${server.url}/api/v1/analytics/${own.appId}/metrics/summary${query}`, { token: own.accessToken });
    // Since 60 days ago: both, the one 50 days after the start included.
    expect((await summary(`?startDate=${iso(now - 60 * DAY)}`)).body.data.sent).toBe(2);
    // The 30 days before an end 5 days ago: only the message 10 days ago.
    expect((await summary(`?endDate=${iso(now - 5 * DAY)}`)).body.data.sent).toBe(1);
    // A start still to come: its 30 days, nothing yet.
    const future = await summary(`?startDate=${iso(now + DAY)}`);
    expect(future.status).toBe(200);
    expect(future.body.data.sent).toBe(0);
    const daily = await request(`${server.url}/api/v1/analytics/${own.appId}/metrics/daily?startDate=${iso(now - 60 * DAY)}`, { token: own.accessToken });
    expect(daily.body.data.reduce((n: number, d: { sent: number }) => n + d.sent, 0)).toBe(2);
    const tooLong = await summary(`?startDate=${iso(now - 500 * DAY)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details).toEqual([{ field: 'startDate', code: 'too_big', message: 'the range may span at most 400 days' }]);
  });
});
