import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, gql, request } from './helpers/http.js';
import { startTestServer } from './helpers/server.js';
import { useServer } from './helpers/use-server.js';

const { server } = useServer();

const viewer = (token: string) => gql(server.url, token, '{ viewer { clientId } }');

describe('rate limits', () => {
  it('every authenticated response carries the four headers; the token endpoint does not count', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'], rate: { minute: 50 } });
    const res = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: 'x' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('50');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('49');
    expect(res.headers.get('x-ratelimit-window')).toBe('minute');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('GraphQL requests count in the same windows as REST', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'], rate: { minute: 10 } });
    await viewer(tenant.accessToken);
    const rest = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: 'x' } });
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('8');
  });

  it('the surfaced window is the one with the smallest remaining fraction', async () => {
    const tenant = await server.tenant({ rate: { minute: 100, hour: 5, day: 1000 } });
    const res = await viewer(tenant.accessToken);
    expect(res.headers.get('x-ratelimit-window')).toBe('hour');
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('an exhausted window answers 429 rate_limit_exceeded with Retry-After, on REST and GraphQL', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'], rate: { minute: 3 } });
    for (let i = 0; i < 3; i++) expect((await viewer(tenant.accessToken)).status).toBe(200);
    const rest = await request(`${server.url}/api/v1/oauth/revoke`, { token: tenant.accessToken, json: { token: 'x' } });
    expect(rest.status).toBe(429);
    expectErrorEnvelope(rest.body, 'rate_limit_exceeded');
    const retryAfter = Number(rest.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rest.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(rest.headers.get('x-ratelimit-window')).toBe('minute');
    const graph = await viewer(tenant.accessToken);
    expect(graph.status).toBe(429);
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('rate_limit_exceeded');
    expect(graph.headers.get('retry-after')).toBeTruthy();
  });

  it('limits are per client: another client of the same app is unaffected', async () => {
    const tenant = await server.tenant({ rate: { minute: 1 } });
    await viewer(tenant.accessToken);
    expect((await viewer(tenant.accessToken)).status).toBe(429);
    const other = await server.client({ apps: [tenant.appId], scopes: ['oauth:revoke'], rate: { minute: 1 } });
    expect((await viewer(await other.token())).status).toBe(200);
  });
});

describe('rate limits with Redis unreachable', () => {
  it('fall back to per-instance memory: requests succeed with headers, then 429 at the limit', async () => {
    const noRedis = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const tenant = await noRedis.tenant({ rate: { minute: 2 } });
      const first = await gql(noRedis.url, tenant.accessToken, '{ viewer { clientId } }');
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
      expect((await gql(noRedis.url, tenant.accessToken, '{ viewer { clientId } }')).status).toBe(200);
      expect((await gql(noRedis.url, tenant.accessToken, '{ viewer { clientId } }')).status).toBe(429);
    } finally {
      await noRedis.close();
    }
  });
});

describe.runIf(process.env.REDIS_URL)('rate limits shared through Redis', () => {
  it('two instances on one database count one client together', async () => {
    const second = await startTestServer({ DATABASE_URL: server.databaseUrl! });
    try {
      const tenant = await server.tenant({ rate: { minute: 3 } });
      await viewer(tenant.accessToken);
      await viewer(tenant.accessToken);
      const there = await gql(second.url, tenant.accessToken, '{ viewer { clientId } }');
      expect(there.status).toBe(200);
      expect(there.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await gql(second.url, tenant.accessToken, '{ viewer { clientId } }')).status).toBe(429);
    } finally {
      await second.close();
    }
  });
});

/**
 * A TCP proxy to Redis that can go silent: it keeps every connection open and passes requests on,
 * but drops the replies, as a hung Redis or a half-open link does.
 */
async function silenceableProxy(target: URL) {
  let silent = false;
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname}`,
    silence: () => void (silent = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

describe.runIf(process.env.REDIS_URL)('rate limits with a Redis that stops answering', () => {
  it('fall back to memory within a second: no request waits on the silent connection', async () => {
    const proxy = await silenceableProxy(new URL(process.env.REDIS_URL!));
    const instance = await startTestServer({ REDIS_URL: proxy.url });
    try {
      const tenant = await instance.tenant({ rate: { minute: 3 } });
      const timed = async () => {
        const started = performance.now();
        const res = await gql(instance.url, tenant.accessToken, '{ viewer { clientId } }');
        return { status: res.status, ms: performance.now() - started };
      };
      expect((await timed()).status).toBe(200); // counted in Redis
      proxy.silence();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await timed());
      // Counted in memory from zero: three allowed, then 429; none waits on Redis past its timeout.
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      for (const { ms } of answers) expect(ms).toBeLessThan(3000);
      // Once the silent socket is dropped, requests do not wait at all.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await timed()).ms).toBeLessThan(400);
    } finally {
      await instance.close();
      await proxy.close();
    }
  }, 30_000);
});
