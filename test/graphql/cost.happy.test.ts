import { describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { rawStream } from '../realtime/stream-helpers.js';

const { server } = useServer();

// 200 calls, each with its timeline: the connection's 200 rows (x10), nodes (x10), events (x3).
const BIG = `query($app: UUID!) { scheduledCalls(appId: $app, first: 200) { nodes { id: callId status events { id: eventId eventType actorType } } } }`;
const BIG_COST = 1 + 10 * (1 + 10 * (1 + 1 + (1 + 3 * 3)));
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));

describe('query cost', () => {
  it('a cheap query (cost 2) is charged one request and reports its cost and the remaining budget in extensions.cost', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const res = await gql(server.url, tenant.accessToken, '{ viewer { clientId } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { clientId: tenant.clientId } });
    const cost = (res.body as any).extensions.cost;
    expect(cost).toEqual({
      requestedQueryCost: 2,
      maximumQueryCost: 2000,
      charged: 1,
      throttleStatus: { window: 'minute', limit: 100, remaining: 99, resetAt: expect.any(String) },
    });
    const resetAt = Date.parse(cost.throttleStatus.resetAt);
    expect(resetAt).toBeGreaterThan(Date.now());
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 61_000);
    expect(remaining(res)).toBe(99);
  });

  it('a 200-row nested query costs more and is charged its cost: the remaining budget falls by it', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const res = await gql(server.url, tenant.accessToken, BIG, { app: tenant.appId });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const cost = (res.body as any).extensions.cost;
    expect(cost.requestedQueryCost).toBe(BIG_COST);
    const charged = Math.ceil(BIG_COST / 50);
    expect(charged).toBeGreaterThan(1);
    expect(cost.charged).toBe(charged);
    expect(cost.throttleStatus.remaining).toBe(100 - charged);
    expect(remaining(res)).toBe(100 - charged);
    // The next request sees the same budget, less its own request.
    const next = await gql(server.url, tenant.accessToken, '{ viewer { clientId } }');
    expect(remaining(next)).toBe(100 - charged - 1);
  });

  it('page sizes given as variables and fragments are measured as sent; a smaller page costs less', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const query = `query Small($app: UUID!, $n: Int) { scheduledCalls(appId: $app, first: $n) { ...Page } }
      query Other { viewer { clientId } }
      fragment Page on ScheduledCallConnection { nodes { id status events { id: eventId eventType actorType } } }`;
    const big = await request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query, variables: { app: tenant.appId, n: 200 }, operationName: 'Small' } });
    expect(big.body.extensions.cost.requestedQueryCost).toBe(BIG_COST);
    const small = await request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query, variables: { app: tenant.appId, n: 20 }, operationName: 'Small' } });
    expect(small.body.extensions.cost.requestedQueryCost).toBe(1 + 1 * (1 + 10 * (1 + 1 + (1 + 3 * 3))));
    const other = await request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query, operationName: 'Other' } });
    expect(other.body.extensions.cost.requestedQueryCost).toBe(2);
  });

  it('a page read backward costs as much as the same page read forward: last weighs as first does', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const cost = async (args: string) =>
      ((await gql(server.url, tenant.accessToken, `query($app: UUID!) { scheduledCalls(appId: $app, ${args}) { nodes { id status events { id: eventId eventType actorType } } } }`, { app: tenant.appId }))
        .body as any).extensions.cost.requestedQueryCost as number;
    expect(await cost('last: 200')).toBe(BIG_COST);
    expect(await cost('last: 20')).toBe(await cost('first: 20'));
    expect(await cost('last: 20')).toBeLessThan(await cost('last: 200'));
  });

  it('mutations are priced too', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'], rate: { minute: 100 } });
    const res = await gql(server.url, tenant.accessToken, 'mutation($t: String!) { revokeToken(token: $t) }', { t: 'not-a-token' });
    expect(res.status).toBe(200);
    expect((res.body as any).extensions.cost).toMatchObject({ requestedQueryCost: 1, charged: 1, throttleStatus: { remaining: 99 } });
  });

  it('REST answers carry no cost and are charged one request, whatever their page size', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const res = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls?limit=200`, { token: tenant.accessToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
    expect(JSON.stringify(res.body)).not.toContain('cost');
    expect(remaining(res)).toBe(99);
    const again = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls?limit=200`, { token: tenant.accessToken });
    expect(remaining(again)).toBe(98);
  });
});

describe('query cost of subscriptions', () => {
  // One request per 2 of cost, so a small subscription counts as several.
  const { server: cheap } = useServer({ overrides: { GRAPHQL_COST_PER_REQUEST: '2' } });

  it('a subscription over /graphql/stream is charged its cost once, when it starts', async () => {
    const tenant = await cheap.tenant({ rate: { minute: 100 } });
    const stream = await rawStream(cheap, tenant.accessToken, 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId eventType actorType } }', { app: tenant.appId });
    expect(await stream.status).toBe(200);
    // Cost 4: two requests, the stream's own and one more, charged before the stream opened.
    const after = await gql(cheap.url, tenant.accessToken, '{ viewer { clientId } }');
    expect(remaining(after)).toBe(100 - 2 - 1);
    stream.socket.destroy();
    await stream.closed;
    // Nothing more while it ran or when it ended.
    const later = await gql(cheap.url, tenant.accessToken, '{ viewer { clientId } }');
    expect(remaining(later)).toBe(100 - 2 - 2);
  });
});
