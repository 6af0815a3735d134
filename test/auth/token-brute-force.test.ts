import { request as httpRequest } from 'node:http';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/**
 * Secret guessing is slowed per source address and per client id without lock-out: the loopback aliases 127.0.0.x stand for distinct callers.
 */
const { server } = useServer({ overrides: { TOKEN_FAILURES_PER_15MIN: '3', TOKEN_FAILURES_PER_ADDRESS_15MIN: '8', TOKEN_FAILURES_PER_CLIENT_15MIN: '5' } });

function tokenFrom(localAddress: string, clientId: string, clientSecret: string): Promise<{ status: number; retryAfter: string | undefined }> {
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const url = new URL('/api/v1/oauth/token', server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const newTenant = (): Promise<Tenant> => server.tenant({ scopes: ['oauth:revoke'] });

describe('token endpoint: brute force without lock-out', () => {
  it("wrong secrets from one address throttle that address for the client; the right secret from another address still gets a token", async () => {
    const victim = await newTenant();
    for (let i = 0; i < 3; i++) expect((await tokenFrom('127.0.0.2', victim.clientId, `guess-${i}`)).status).toBe(401);
    const refused = await tokenFrom('127.0.0.2', victim.clientId, 'guess-3');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // The throttled address is refused even with the right secret (else a guess would tell).
    expect((await tokenFrom('127.0.0.2', victim.clientId, victim.clientSecret)).status).toBe(429);
    expect((await tokenFrom('127.0.0.3', victim.clientId, victim.clientSecret)).status).toBe(200);
    // And that address may keep failing for another client.
    const other = await newTenant();
    expect((await tokenFrom('127.0.0.2', other.clientId, 'nope')).status).toBe(401);
  });

  it('an address over its own budget is refused for every client id; other addresses are not', async () => {
    const real = await newTenant();
    for (let i = 0; i < 8; i++) expect((await tokenFrom('127.0.0.4', `sbc_unknown_${i}`, 'x')).status).toBe(401);
    expect((await tokenFrom('127.0.0.4', 'sbc_unknown_9', 'x')).status).toBe(429);
    expect((await tokenFrom('127.0.0.4', real.clientId, real.clientSecret)).status).toBe(429);
    expect((await tokenFrom('127.0.0.5', real.clientId, real.clientSecret)).status).toBe(200);
  });

  it('a guess spread over addresses: past the client budget an address that failed gets no second try, a clean address still gets in', async () => {
    const victim = await newTenant();
    // Five addresses, one wrong guess each: the client's budget (5) is spent, no address's is.
    for (let n = 10; n < 15; n++) expect((await tokenFrom(`127.0.0.${n}`, victim.clientId, `guess-${n}`)).status).toBe(401);
    // A fresh address may still fail once (told 401), and then, like the others, is refused.
    expect((await tokenFrom('127.0.0.15', victim.clientId, 'guess-15')).status).toBe(401);
    for (const n of [10, 15]) {
      expect((await tokenFrom(`127.0.0.${n}`, victim.clientId, 'again')).status).toBe(429);
      expect((await tokenFrom(`127.0.0.${n}`, victim.clientId, victim.clientSecret)).status).toBe(429);
    }
    expect((await tokenFrom('127.0.0.20', victim.clientId, victim.clientSecret)).status).toBe(200);
  });

  it('right secrets use no budget: many from one address all get tokens', async () => {
    const busy = await newTenant();
    const statuses = await Promise.all(Array.from({ length: 12 }, () => tokenFrom('127.0.0.30', busy.clientId, busy.clientSecret).then((r) => r.status)));
    expect(statuses).toEqual(Array(12).fill(200));
  });

  it('limiter keys name hashes, never the client id or the address', async () => {
    const marked = `sbc_marker_${'m'.repeat(40)}`;
    expect((await tokenFrom('127.0.0.40', marked, 'x')).status).toBe(401);
    const url = server.runtime.config.REDIS_URL;
    let keys: string[];
    if (url) {
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      keys = [];
      for await (const batch of redis.scanStream({ match: 'sb:token-fail-*', count: 1000 }) as AsyncIterable<string[]>) keys.push(...batch);
      redis.disconnect();
    } else {
      const limiters = (server.runtime.rateLimits as unknown as { limiters: Map<string, { _memoryStorage?: { _storage: Map<string, unknown> } }> }).limiters;
      keys = [...limiters].filter(([name]) => name.startsWith('token')).flatMap(([, l]) => [...l._memoryStorage!._storage.keys()]);
    }
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(keys.filter((k) => k.includes('marker') || k.includes('127.0.0.40'))).toEqual([]);
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThan(64);
  });
});
