import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// A statement that cannot finish (a lock held elsewhere, a stalled database) is cancelled at
// DB_STATEMENT_TIMEOUT_MS: the request answers 503 while the lock is still held, instead of
// waiting for it with a pooled connection, and the next request after the lock is gone is served.
// PostgreSQL only (PGlite has one connection and no other session to hold a lock).
const onPostgres = Boolean(process.env.DATABASE_URL);
const { server, tenant } = useServer({ overrides: { DB_STATEMENT_TIMEOUT_MS: '1000' }, tenant: true });

describe.skipIf(!onPostgres)('a statement that waits past DB_STATEMENT_TIMEOUT_MS', () => {
  it('is cancelled: 503 service_unavailable while the lock is held, served again once it is released', async () => {
    const list = () => request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=5`, { token: tenant.accessToken });
    const graph = () => request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query: `{ messages(appId: "${tenant.appId}", first: 5) { limit } }` } });
    expect((await list()).status).toBe(200);

    const admin = postgres(server.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      await admin.begin(async (tx) => {
        await tx`lock table messages in access exclusive mode`;
        // Held until both answer, or 15 s at most: without the timeout they would wait for it,
        // and this would fail with 'no answer while the lock was held'.
        const [rest, gql] = await Promise.race([
          Promise.all([list(), graph()]),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer while the lock was held')), 15_000)),
        ]);
        expect(rest.status, JSON.stringify(rest.body)).toBe(503);
        expect(rest.body.error).toMatchObject({ type: 'service_unavailable', message: expect.stringContaining('did not answer in time') });
        expect(rest.headers.get('retry-after')).toBe('1');
        expect(gql.body.errors?.[0]?.extensions?.code).toBe('service_unavailable');
      });
      expect((await list()).status).toBe(200);
    } finally {
      await admin.end();
    }
  });
});
