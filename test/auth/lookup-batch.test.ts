import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthClients } from '../../src/auth/tables.js';
import { authenticate, revokeToken } from '../../src/auth/access-tokens.js';
import { verifyAccessToken } from '../../src/auth/tokens.js';
import type { RequestContext } from '../../src/runtime.js';
import { useServer } from '../helpers/use-server.js';

// The revocation/quota lookup of requests that arrive together is one query (src/auth/access-tokens.ts).
// These check what sharing it must not change: each request gets its own token's answer, and a
// request that begins after a revocation never rides on a query sent before it.
const { server } = useServer({ overrides: { RATE_LIMIT_MINUTE: '100000' } });

const bearer = (token: string) => `Bearer ${token}`;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function revoke(clientId: string, token: string) {
  const ctx = { runtime: server.runtime, auth: { clientId } } as unknown as RequestContext;
  await revokeToken(ctx, token);
}

describe('batched token lookup', () => {
  it('answers requests that arrive together with one query', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => tenant.token()));
    // Signatures checked first (jose resolves on a later turn), so the lookups meet in one turn.
    for (const t of tokens) await verifyAccessToken(server.runtime.keys, server.runtime.tokens, t);
    const before = server.runtime.database.queries.count;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => authenticate(server.runtime, bearer(tokens[i % tokens.length]!))));
    expect(server.runtime.database.queries.count - before).toBe(1);
    expect(results.every((r) => r.ok && r.auth.clientId === tenant.clientId)).toBe(true);
  });

  it('gives each token in a batch its own answer: live, revoked, deleted client, own quota', async () => {
    const live = await server.tenant({ scopes: ['messages:read'], rate: { minute: 7 } });
    const revoked = await server.tenant({ scopes: ['messages:read'] });
    const deleted = await server.tenant({ scopes: ['messages:read'] });
    await revoke(revoked.clientId, revoked.accessToken);
    await server.runtime.database.db.delete(oauthClients).where(eq(oauthClients.id, deleted.clientId));

    const { runtime } = server;
    for (const t of [live, revoked, deleted]) expect(typeof (await verifyAccessToken(runtime.keys, runtime.tokens, t.accessToken))).toBe('object');
    const before = server.runtime.database.queries.count;
    const [a, b, c, a2] = await Promise.all(
      [live.accessToken, revoked.accessToken, deleted.accessToken, live.accessToken].map((t) => authenticate(server.runtime, bearer(t))),
    );
    expect(server.runtime.database.queries.count - before).toBe(1);
    expect(a).toMatchObject({ ok: true, auth: { clientId: live.clientId }, quota: { minute: 7 } });
    expect(a2).toMatchObject({ ok: true, auth: { clientId: live.clientId }, quota: { minute: 7 } });
    expect(b).toEqual({ ok: false, message: 'Token revoked', error: 'invalid_token' });
    expect(c).toEqual({ ok: false, message: 'Client no longer exists', error: 'invalid_token' });
  });

  it('does not answer a request that began after a revocation from a query sent before it', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    const token = await tenant.token();
    // A lookup for the token is on its way to the database...
    const inFlight = authenticate(server.runtime, bearer(token));
    await nextTurn();
    // ...the token is revoked (committed), then a new request with it begins.
    await revoke(tenant.clientId, token);
    const after = await authenticate(server.runtime, bearer(token));
    expect(after).toEqual({ ok: false, message: 'Token revoked', error: 'invalid_token' });
    await inFlight;
  });

  it('refuses a revoked token over HTTP while other requests with it are in flight', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read', 'oauth:revoke'] });
    const token = await tenant.token();
    const get = () => fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages?limit=1`, { headers: { authorization: bearer(token) } });
    const burst = await Promise.all(Array.from({ length: 10 }, get));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    const revoked = await fetch(`${server.url}/api/v1/oauth/revoke`, {
      method: 'POST',
      headers: { authorization: bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(revoked.status).toBe(200);
    const later = await Promise.all(Array.from({ length: 10 }, get));
    expect(later.map((r) => r.status)).toEqual(Array(10).fill(401));
  });
});
