import { describe, expect, it } from 'vitest';
import { gql as gqlAnyAccept, graphQLResponseJson, request } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { rawStream } from '../realtime/stream-helpers.js';

// Refusals before execution answer 400 to this media type (200 to application/json).
const gql = (url: string, token: string | undefined, query: string, variables?: Record<string, unknown>) => gqlAnyAccept(url, token, query, variables, graphQLResponseJson);

// A maximum of 500 and one request per 10 of cost: BIG (1211) is over it, MEDIUM (122) counts as 13 requests.
const { server } = useServer({ overrides: { GRAPHQL_MAX_COMPLEXITY: '500', GRAPHQL_COST_PER_REQUEST: '10' } });

const BIG = `query($app: UUID!) { scheduledCalls(appId: $app, first: 200) { nodes { id: callId status events { id: eventId eventType actorType } } } }`;
const MEDIUM = `query($app: UUID!) { scheduledCalls(appId: $app, first: 20) { nodes { id: callId status events { id: eventId eventType actorType } } } }`;
const remaining = (res: { headers: Headers }) => Number(res.headers.get('x-ratelimit-remaining'));
const viewer = (token: string) => gql(server.url, token, '{ viewer { clientId } }');

describe('query cost refusals', () => {
  it('an operation over the maximum is refused before execution, naming its cost and the maximum', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const res = await gql(server.url, tenant.accessToken, BIG, { app: tenant.appId });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    const [error] = res.body.errors!;
    expect(error!.extensions?.code).toBe('invalid_request');
    expect(error!.message).toMatch(/complexity 1211 exceeds the limit of 500: its query cost is over the maximum/);
    expect((res.body as any).extensions.cost).toMatchObject({ requestedQueryCost: 1211, maximumQueryCost: 500, charged: 1 });
    // Refused, it was charged its request only.
    expect(remaining(await viewer(tenant.accessToken))).toBe(98);
  });

  it('an over-maximum mutation does not run', async () => {
    const owner = await server.tenant({ scopes: ['oauth:revoke'] });
    const victim = await owner.token();
    const fields = Array.from({ length: 25 }, (_, i) => `a${i}: revokeToken(token: $t)`).join(' ');
    const low = await startTestServer({ GRAPHQL_MAX_COMPLEXITY: '20', GRAPHQL_MAX_ALIASES: '50' });
    try {
      const lowOwner = await low.tenant({ scopes: ['oauth:revoke'] });
      const lowVictim = await lowOwner.token();
      const res = await gql(low.url, lowOwner.accessToken, `mutation($t: String!) { ${fields} }`, { t: lowVictim });
      expect(res.body.errors?.[0]?.message).toMatch(/complexity 25 exceeds the limit of 20/);
      expect((await viewer(victim)).status).toBe(200);
      expect((await gql(low.url, lowVictim, '{ viewer { clientId } }')).status).toBe(200);
    } finally {
      await low.close();
    }
  });

  it('a client whose budget cannot pay the cost is refused with 429 and Retry-After, and charged nothing more', async () => {
    const tenant = await server.tenant({ rate: { minute: 16 } });
    const first = await gql(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId });
    expect(first.status).toBe(200);
    expect((first.body as any).extensions.cost).toMatchObject({ requestedQueryCost: 122, charged: 13, throttleStatus: { remaining: 3, limit: 16 } });
    expect(remaining(first)).toBe(3);
    const refused = await gql(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId });
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('rate_limit_exceeded');
    expect(refused.body.errors?.[0]?.message).toMatch(/costs 122, counted as 13 requests, and this minute had 3 left/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('x-ratelimit-window')).toBe('minute');
    expect(remaining(refused)).toBe(2);
    expect((refused.body as any).extensions.cost).toMatchObject({ requestedQueryCost: 122, charged: 1, throttleStatus: { remaining: 2 } });
    // application/json gets the 429 too: a rate-limit refusal is not a document error.
    const plain = await gqlAnyAccept(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId });
    expect(plain.status).toBe(429);
    expect(plain.body.errors?.[0]?.extensions?.code).toBe('rate_limit_exceeded');
    // The refused operations took their request only: cheap ones still run until the budget is spent.
    expect(remaining(await viewer(tenant.accessToken))).toBe(0);
    expect((await viewer(tenant.accessToken)).status).toBe(429);
  });

  it('an operation costing more than a whole window is refused, whatever remains', async () => {
    const tenant = await server.tenant({ rate: { minute: 5 } });
    const res = await gql(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId });
    expect(res.status).toBe(429);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('rate_limit_exceeded');
    expect(remaining(await viewer(tenant.accessToken))).toBe(3);
  });

  it('the day window refuses too', async () => {
    const tenant = await server.tenant({ rate: { minute: 100, hour: 100, day: 20 } });
    expect((await gql(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId })).status).toBe(200);
    const refused = await gql(server.url, tenant.accessToken, MEDIUM, { app: tenant.appId });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-window')).toBe('day');
  });

  it('a subscription its client cannot pay for is refused with 429 before the stream opens', async () => {
    const tenant = await server.tenant({ rate: { minute: 3 } });
    const fields = Array.from({ length: 30 }, (_, i) => `f${i}: eventType`).join(' ');
    const stream = await rawStream(server, tenant.accessToken, `subscription($app: UUID!) { scheduledCallEvents(appId: $app) { eventId ${fields} } }`, { app: tenant.appId });
    expect(await stream.status).toBe(429);
    await expect.poll(() => stream.body().endsWith('}]}')).toBe(true);
    stream.socket.destroy();
    const body = JSON.parse(stream.body());
    expect(body.errors[0].extensions).toEqual({ code: 'rate_limit_exceeded' });
    expect(body.errors[0].message).toMatch(/costs 32, counted as 4 requests/);
  });

  it('variables that do not coerce are refused as before, without a cost', async () => {
    const tenant = await server.tenant({ rate: { minute: 100 } });
    const res = await gql(server.url, tenant.accessToken, MEDIUM, { app: 'not-a-uuid' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
    expect((res.body as any).extensions?.cost).toBeUndefined();
  });

  it('REST is charged one request even where the same page as GraphQL would be refused', async () => {
    const tenant = await server.tenant({ rate: { minute: 5 } });
    const res = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls?limit=200`, { token: tenant.accessToken });
    expect(res.status).toBe(200);
    expect(remaining(res)).toBe(4);
  });
});
