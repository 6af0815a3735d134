import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { startTestServer, type Tenant, type TestServer } from '../helpers/server.js';

/*
 * A client's mistake is not the operator's alarm: errors the client caused (validation, not
 * found, forbidden) are answered in the envelope and logged below error level. Left to its
 * default, yoga would log every error its maskError replaces at level 50, validation errors and
 * video 409s included.
 */

const lines: { level: number; msg: string }[] = [];
const sink = new Writable({
  write(chunk, _encoding, callback) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
    callback();
  },
});

let server: TestServer;
let tenant: Tenant;
beforeAll(async () => {
  server = await startTestServer({}, { logger: pino({ level: 'debug' }, sink) });
  tenant = await server.tenant({ scopes: ['messages:read', 'analytics:read'] });
});
afterAll(() => server.close());

describe('log levels of client errors', () => {
  it('GraphQL and REST client errors are answered and logged below error level', async () => {
    const before = lines.length;
    const invalid = await gql(server.url, tenant.accessToken, `{ messages(appId: "${tenant.appId}", first: 0) { limit } }`);
    expect(invalid.body.errors?.[0]?.extensions?.code).toBe('validation_error');
    const missing = await gql(server.url, tenant.accessToken, `{ template(appId: "${tenant.appId}", templateId: "00000000-0000-4000-8000-000000000000") { id: templateId } }`);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const forbidden = await gql(server.url, tenant.accessToken, `{ campaigns(appId: "${tenant.appId}") { limit } }`);
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    expect((await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=0`, { token: tenant.accessToken })).status).toBe(400);

    const logged = lines.slice(before);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    // yoga's own line for each masked error is still there, at debug.
    expect(logged.filter((l) => l.msg === 'yoga: error masked').length).toBeGreaterThanOrEqual(3);
  });
});
