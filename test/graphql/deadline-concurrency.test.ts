import { graphql, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeadlines } from '../../src/graphql/deadline.js';
import { ClientConcurrency } from '../../src/http/client-concurrency.js';
import type { RequestContext } from '../../src/runtime.js';
import { request } from '../helpers/http.js';
import { startTestServer, type Tenant, type TestServer } from '../helpers/server.js';

describe('operation deadline', () => {
  const item = new GraphQLObjectType({ name: 'Item', fields: { name: { type: GraphQLString, resolve: () => 'x' } } });
  const schema = withDeadlines(
    new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { items: { type: new GraphQLList(item), resolve: () => [{}, {}] } } }),
    }),
  );
  const ctx = (deadline: number | undefined) => ({ deadline, runtime: { config: { OPERATION_TIMEOUT_MS: 100 } } }) as unknown as RequestContext;

  it('runs before its deadline and without one', async () => {
    for (const deadline of [undefined, performance.now() + 60_000]) {
      const result = await graphql({ schema, source: '{ items { name } }', contextValue: ctx(deadline) });
      expect(result).toEqual({ data: { items: [{ name: 'x' }, { name: 'x' }] } });
    }
  });

  it('a list field past the deadline does not start: 503 service_unavailable', async () => {
    const result = await graphql({ schema, source: '{ items { name } }', contextValue: ctx(performance.now() - 1) });
    expect(result.data).toEqual({ items: null });
    expect(result.errors?.[0]?.message).toMatch(/time limit of 100 ms/);
    expect((result.errors?.[0]?.originalError as { type?: string }).type).toBe('service_unavailable');
  });
});

describe('requests in flight per client', () => {
  it('counts per client and forgets a client with nothing running', () => {
    const limit = new ClientConcurrency(2);
    expect([limit.tryAcquire('a'), limit.tryAcquire('a'), limit.tryAcquire('a'), limit.tryAcquire('b')]).toEqual([true, true, false, true]);
    limit.release('a');
    expect(limit.tryAcquire('a')).toBe(true);
    for (const id of ['a', 'a', 'b']) limit.release(id);
    expect(limit.clients).toBe(0);
  });

  let server: TestServer;
  let busy: Tenant;
  let calm: Tenant;
  beforeAll(async () => {
    server = await startTestServer({ CLIENT_MAX_CONCURRENT: '2' });
    [busy, calm] = [await server.tenant({ scopes: ['messages:read'] }), await server.tenant({ scopes: ['messages:read'] })];
  });
  afterAll(() => server.close());

  it('over the limit: 429 rate_limit_exceeded with Retry-After, REST and GraphQL; another client is not refused', async () => {
    const rest = () => request(`${server.url}/api/v1/analytics/${busy.appId}/messages?limit=200`, { token: busy.accessToken });
    const gql = () => request(`${server.url}/graphql`, { token: busy.accessToken, json: { query: `{ messages(appId: "${busy.appId}", first: 50) { nodes { id } } }` } });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? rest() : gql())));
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    for (const r of refused) expect(r.headers.get('retry-after')).toBe('1');
    const restRefusal = results.find((r, i) => i % 2 === 1 && r.status === 429);
    if (restRefusal) expect(restRefusal.body.error.type).toBe('rate_limit_exceeded');
    const gqlRefusal = results.find((r, i) => i % 2 === 0 && r.status === 429);
    if (gqlRefusal) expect(gqlRefusal.body.errors[0].extensions.code).toBe('rate_limit_exceeded');
    // Once those ended, the slots are free again, and another client was never counted with it.
    expect((await rest()).status).toBe(200);
    expect((await request(`${server.url}/api/v1/analytics/${calm.appId}/messages`, { token: calm.accessToken })).status).toBe(200);
  });
});
