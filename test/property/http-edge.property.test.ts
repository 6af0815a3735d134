import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, everyDay, importRecords } from '../scheduling/fixtures.js';

// Any string as a query or path parameter yields 200 or a 400 envelope, never a 500.
// Fixed seed in `npm test`; PROPERTY_RUNS=1000 (and PROPERTY_SEED) for a larger run on demand.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const SEED = Number(process.env.PROPERTY_SEED ?? 20261123);

const { server, tenant } = useServer({ overrides: { RATE_LIMIT_MINUTE: '1000000', RATE_LIMIT_HOUR: '1000000', RATE_LIMIT_DAY: '1000000' }, tenant: { rate: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 } } });
beforeAll(async () => {
  await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('09:00', '17:00'))]);
});

// Instants and days at the calendar's edges: years 0000 to 9999 (with offsets that cross a year),
// days a month does not have, hours 24 and minutes 60.
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const calendarEdge = fc
  .tuple(
    fc.oneof(fc.constantFrom(0, 1, 1899, 1900, 9998, 9999), fc.integer({ min: 0, max: 9999 })),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.constantFrom('Z', '+14:00', '-12:00', '+05:30', '', 'date'),
  )
  .map(([year, month, day, hour, minute, zone]) => {
    const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
    return zone === 'date' ? date : `${date}T${pad(hour)}:${pad(minute)}:00${zone}`;
  });

// Strings a client might send: unicode, control characters, numbers, dates, huge values, SQL-ish.
const nasty = fc.oneof(
  calendarEdge,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '0', '-1', '1e9', 'NaN', 'null', '[]', '{}', "' or 1=1 --", '%00', '\u0000', '2026-02-30', '2026-03-08T25:00:00Z', '9'.repeat(400), 'Europe/Nowhere'),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
);

function expectClean(status: number, body: unknown, what: string) {
  expect(status, what).toBeLessThan(500);
  if (status >= 400) {
    const error = (body as { error?: { type?: string; message?: string } }).error;
    expect(typeof error?.type, what).toBe('string');
    expect(typeof error?.message, what).toBe('string');
  }
}

const endpoints: { path: (app: string) => string; params: string[] }[] = [
  { path: (a) => `/api/v1/analytics/${a}/messages`, params: ['limit', 'cursor', 'status', 'direction', 'channel', 'messageType', 'source', 'destination', 'search', 'startDate', 'endDate'] },
  { path: (a) => `/api/v1/analytics/${a}/campaigns`, params: ['limit', 'cursor', 'status', 'search', 'tags', 'startDate', 'endDate'] },
  { path: (a) => `/api/v1/analytics/${a}/templates`, params: ['limit', 'cursor', 'status', 'category', 'language'] },
  { path: (a) => `/api/v1/analytics/${a}/metrics/daily`, params: ['startDate', 'endDate', 'timezone'] },
  { path: (a) => `/api/v1/analytics/${a}/metrics/summary`, params: ['startDate', 'endDate'] },
  { path: (a) => `/api/v1/video/${a}/availability`, params: ['fromUtc', 'toUtc', 'durationMinutes', 'agentId', 'stepMinutes', 'bufferBeforeMinutes', 'bufferAfterMinutes', 'respectWorkingHours'] },
  { path: (a) => `/api/v1/video/${a}/scheduled-calls`, params: ['limit', 'cursor', 'status', 'agentId', 'fromUtc', 'toUtc'] },
];

describe('HTTP edge: query and path parameters', () => {
  for (const endpoint of endpoints) {
    it(`${endpoint.path(':appId')}: any parameter values give 200 or a 400 envelope`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.constantFrom(...endpoint.params), nasty, { maxKeys: 4 }), async (params) => {
          const query = new URLSearchParams(params).toString();
          const res = await request(`${server.url}${endpoint.path(tenant.appId)}?${query}`, { token: tenant.accessToken });
          expectClean(res.status, res.body, query);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }

  it('any string as a path segment (appId, template id, tag, call id) gives a 4xx envelope, never a 500', async () => {
    const segment = nasty.filter((s) => s.length > 0 && !s.includes('/'));
    await fc.assert(
      fc.asyncProperty(segment, fc.constantFrom('app', 'template', 'tag', 'call'), async (value, where) => {
        const v = encodeURIComponent(value);
        const path = {
          app: `/api/v1/analytics/${v}/messages`,
          template: `/api/v1/analytics/${tenant.appId}/templates/${v}`,
          tag: `/api/v1/analytics/${tenant.appId}/tags/${v}/stats`,
          call: `/api/v1/video/${tenant.appId}/scheduled-calls/${v}`,
        }[where];
        const res = await request(`${server.url}${path}`, { token: tenant.accessToken });
        expectClean(res.status, res.body, `${where} ${JSON.stringify(value)}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('any JSON body on the write paths gives a 2xx or 4xx envelope, never a 500', async () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const bodies = fc.oneof(json, fc.dictionary(fc.constantFrom('scheduledAtUtc', 'durationMinutes', 'guestName', 'assignedAgentId', 'guestPhone', 'guestEmail', 'guestTimezone', 'reason', 'filter', 'limit', 'cursor', 'to', 'type', 'interactive', 'template'), fc.oneof(json, calendarEdge), { maxKeys: 5 }));
    const paths = [
      ['POST', `/api/v1/video/${tenant.appId}/scheduled-calls`],
      ['PATCH', `/api/v1/video/${tenant.appId}/scheduled-calls/00000000-0000-4000-8000-000000000001`],
      ['DELETE', `/api/v1/video/${tenant.appId}/scheduled-calls/00000000-0000-4000-8000-000000000001`],
      ['POST', `/api/v1/analytics/${tenant.appId}/campaigns/search`],
      ['POST', `/api/v1/messaging/${tenant.appId}/messages`],
      ['POST', `/api/v1/messaging/${tenant.appId}/inbound`],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), bodies, async ([method, path], body) => {
        const res = await request(`${server.url}${path}`, { method, token: tenant.accessToken, json: body });
        expectClean(res.status, res.body, `${method} ${path} ${JSON.stringify(body)}`);
      }),
      { numRuns: RUNS * 2, seed: SEED },
    );
  });
});
