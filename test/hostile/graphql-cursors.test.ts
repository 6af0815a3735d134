import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signCursorPayload } from '../../src/db/cursor.js';
import { appList } from '../../src/db/keyset.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

/*
 * Cursors a client builds itself: with the unkeyed check value the format once had (anyone could
 * compute it), and, signed with the server's own key, values no column would take. Every one is
 * a 400 naming the cursor, on every list, over REST and GraphQL, and never reaches SQL.
 */

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read', 'campaigns:read', 'analytics:read', 'scheduling:read', 'video:read', 'webhooks:write'] } });

const unkeyed = (list: string, payload: string) =>
  Buffer.from(JSON.stringify([payload, createHash('sha256').update(`${list}\u0000${payload}`).digest('base64url').slice(0, 12)])).toString('base64url');

const lists = [
  { list: 'messages', field: 'messages', rest: 'analytics/{app}/messages', type: 'validation_error' },
  { list: 'campaigns', field: 'campaigns', rest: 'analytics/{app}/campaigns', type: 'validation_error' },
  { list: 'templates', field: 'templates', rest: 'analytics/{app}/templates', type: 'validation_error' },
  // Scheduling answers every input error as invalid_request (its REST paths do).
  { list: 'scheduled_calls', field: 'scheduledCalls', rest: 'video/{app}/scheduled-calls', type: 'invalid_request' },
  { list: 'video_calls', field: 'videoCalls', rest: undefined, type: 'validation_error' },
  { list: 'webhook_deliveries', field: 'webhookDeliveries', rest: undefined, type: 'validation_error' },
] as const;

const forgeries = (list: string, appId: string): [string, string][] => {
  const bound = appList(list, appId);
  const keys = server.runtime.keys.cursorKeys;
  return [
    ['unkeyed scheme, UUID id', unkeyed(bound, JSON.stringify(['2026-01-01T00:00:00.000Z', randomUUID()]))],
    ['unkeyed scheme, non-UUID id', unkeyed(bound, JSON.stringify(['2026-01-01T00:00:00.000Z', 'not-a-uuid']))],
    ['unkeyed scheme, year -271821', unkeyed(bound, JSON.stringify(['-271821-04-20T00:00:00.000Z', randomUUID()]))],
    // Messages keep the provider's text ids: a bounded, well-formed text is the check there.
    ['signed, id no column takes', signCursorPayload(keys, bound, JSON.stringify(['2026-01-01T00:00:00.000Z', list === 'messages' ? 'x'.repeat(300) : "x') or ('1'='1"]))],
    ['signed, year 275760', signCursorPayload(keys, bound, JSON.stringify(['+275760-09-13T00:00:00.000Z', randomUUID()]))],
    ['signed, Infinity as date', signCursorPayload(keys, bound, JSON.stringify([1e309, randomUUID()]))],
    ['signed, February 31st', signCursorPayload(keys, bound, JSON.stringify(['2026-02-31T00:00:00.000Z', randomUUID()]))],
  ];
};

describe('forged and out-of-range cursors are refused (REST 400, GraphQL 200 with the code), never 500', () => {
  for (const { list, field, rest, type } of lists) {
    it(`${field}: GraphQL`, async () => {
      for (const [name, cursor] of forgeries(list, tenant.appId)) {
        const res = await gql(server.url, tenant.accessToken, `query($app: UUID!, $c: String) { ${field}(appId: $app, after: $c) { nodes { __typename } } }`, { app: tenant.appId, c: cursor });
        expect(res.status, name).toBe(200);
        expect(res.body.errors?.[0]?.extensions?.code, name).toBe(type);
        expect(res.body.errors?.[0]?.extensions?.details?.[0]?.field, name).toBe('after');
      }
    });
    if (rest) {
      it(`${field}: REST`, async () => {
        for (const [name, cursor] of forgeries(list, tenant.appId)) {
          const res = await request(`${server.url}/api/v1/${rest.replace('{app}', tenant.appId)}?cursor=${cursor}`, { token: tenant.accessToken });
          expect(res.status, name).toBe(400);
          expect(res.body.error, name).toMatchObject({ type, details: [{ field: 'cursor', code: 'invalid_value' }] });
        }
      });
    }
  }

  it('a cursor the server issued still pages', async () => {
    const bound = appList('video_calls', tenant.appId);
    // Made as the service makes one (its own key), for a position no row has: an empty page.
    const cursor = signCursorPayload(server.runtime.keys.cursorKeys, bound, JSON.stringify(['2026-01-01T00:00:00.000Z', randomUUID()]));
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!, $c: String) { videoCalls(appId: $app, after: $c) { nodes { __typename } } }`, { app: tenant.appId, c: cursor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.videoCalls.nodes).toEqual([]);
  });
});
