import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { forwardedClient } from '../../src/rest/token-route.js';
import type { TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Behind a reverse proxy every caller's socket peer is the proxy: without TRUSTED_PROXIES one
// caller's failed guesses would spend the budget of all of them.
describe('forwardedClient', () => {
  const trusted = ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'];
  it.each([
    ['a peer that is no trusted proxy: the peer, whatever it forwards', '198.51.100.9', '203.0.113.7', '198.51.100.9'],
    ['a trusted peer: the right-most untrusted entry', '127.0.0.1', '203.0.113.7', '203.0.113.7'],
    ['entries the caller wrote further left are ignored', '127.0.0.1', '1.2.3.4, 203.0.113.7', '203.0.113.7'],
    ['trusted hops are skipped', '127.0.0.1', '203.0.113.7, 10.1.2.3', '203.0.113.7'],
    ['a malformed entry stops the walk at the last trusted hop', '127.0.0.1', '203.0.113.7, bogus, 10.1.2.3', '10.1.2.3'],
    ['no header: the peer', '127.0.0.1', undefined, '127.0.0.1'],
    ['IPv6 proxies and callers', 'fd00::1', '2001:db8::5', '2001:db8::5'],
  ])('%s', (_name, peer, header, expected) => {
    expect(forwardedClient(peer, header, trusted)).toBe(expected);
  });

  it('TRUSTED_PROXIES refuses what is no address or block, naming it', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '::1']);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.1, 10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES: entry 2 is not an IP address or CIDR block$/);
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.local' })).toThrow(/TRUSTED_PROXIES/);
  });
});

function tokenVia(server: TestServer, forwardedFor: string, clientId: string, clientSecret: string): Promise<number> {
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const url = new URL('/api/v1/oauth/token', server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': forwardedFor },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.each([
  ['behind a trusted proxy, each forwarded caller has its own budget', '127.0.0.1', 200],
  ['without TRUSTED_PROXIES, X-Forwarded-For is not believed', '', 429],
])('token failure budgets: %s', (_name, proxies, expected) => {
  const { server } = useServer({ overrides: { TRUSTED_PROXIES: proxies, TOKEN_FAILURES_PER_ADDRESS_15MIN: '3' } });

  it(`a guesser spends its budget; another forwarded caller's right secret: ${expected}`, async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'] });
    for (let i = 0; i < 3; i++) expect(await tokenVia(server, '203.0.113.7', `sbc_unknown_${i}`, 'x')).toBe(401);
    expect(await tokenVia(server, '203.0.113.7', 'sbc_unknown_9', 'x')).toBe(429);
    expect(await tokenVia(server, '203.0.113.8', tenant.clientId, tenant.clientSecret)).toBe(expected);
  });
});
