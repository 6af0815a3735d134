import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

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

const { server, tenant } = useServer({ logger: pino({ level: 'debug' }, sink), tenant: { scopes: ['messages:read', 'analytics:read'] } });

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
