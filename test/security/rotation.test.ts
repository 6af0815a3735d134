import { describe, expect, it } from 'vitest';
import { retireSigningKey, rotateSigningKeys } from '../../src/auth/keys.js';
import { rotateClientSecret } from '../../src/apps/service.js';
import { gql, request } from '../helpers/http.js';
import { issueToken, startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// Security review: signing-key rotation (a new kid in JWKS, old tokens valid until
// they expire or their key is retired, then refused) and client-secret rotation.
const { server, tenant } = useServer({ overrides: { KEYS_RELOAD_MS: '400' }, tenant: true });

const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
const jwksKids = async () => ((await request(`${server.url}/.well-known/jwks.json`)).body.keys as { kid: string }[]).map((k) => k.kid);
const works = async (token: string) => (await gql(server.url, token, '{ viewer { clientId } }')).status === 200;

describe('signing-key rotation', () => {
  it('a new kid signs; old tokens keep working until their key is retired, then 401', async () => {
    const db = server.runtime.database.db;
    const old = tenant.accessToken;
    const oldKid = kidOf(old);
    expect(await jwksKids()).toEqual([oldKid]);

    // Rotated elsewhere (the CLI, another instance): this instance picks it up at its next key
    // refresh (KEYS_RELOAD_MS, 400 ms here), or at once from a token naming the new kid.
    const { kid: newKid, retired } = await rotateSigningKeys(db, 3600);
    expect(retired).toEqual([]);
    expect(await works(old)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    const fresh = await tenant.token();
    expect(kidOf(fresh)).toBe(newKid);
    expect(await jwksKids()).toEqual([oldKid, newKid]);
    expect(await works(old)).toBe(true);
    expect(await works(fresh)).toBe(true);

    // The newest key cannot be retired; an old one can, and its tokens stop at every instance's
    // next key refresh (KEYS_RELOAD_MS, 400 ms here).
    await expect(retireSigningKey(db, newKid)).rejects.toThrow(/newest/);
    await retireSigningKey(db, oldKid);
    await new Promise((r) => setTimeout(r, 1000));
    const res = await gql(server.url, old, '{ viewer { clientId } }');
    expect(res.status).toBe(401);
    expect(await works(fresh)).toBe(true);
    expect(await jwksKids()).toEqual([newKid]);
  }, 20_000);

  it('rotation retires keys whose tokens have all expired (their successor is older than the grace)', async () => {
    const db = server.runtime.database.db;
    const a = await rotateSigningKeys(db, 3600);
    const b = await rotateSigningKeys(db, 3600);
    // Grace 0: a key whose successor already exists is past it; the current signer (b) is not.
    const c = await rotateSigningKeys(db, 0);
    expect(c.retired).toContain(a.kid);
    expect(c.retired).not.toContain(b.kid);
  });
});

describe('client-secret rotation', () => {
  it('the new secret works, the old one is refused at once, issued tokens stay valid', async () => {
    // On a server of its own: the key rotations above must not interfere with its tokens.
    const own = await startTestServer();
    const ownTenant = await own.tenant();
    const works = async (token: string) => {
      const res = await gql(own.url, token, '{ viewer { clientId } }');
      if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return true;
    };
    const server = own;
    const tenant = ownTenant;
    const client = await server.client({ apps: [tenant.appId], scopes: ['messages:read'] });
    const token = await client.token();
    const rotated = await rotateClientSecret(server.runtime.database.db, client.clientId);
    expect(rotated.client_secret).not.toBe(client.clientSecret);
    const old = await request(`${server.url}/api/v1/oauth/token`, {
      json: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(old.status).toBe(401);
    expect(old.body.error.type).toBe('invalid_client');
    expect(await issueToken(server.url, client.clientId, rotated.client_secret)).toMatch(/^ey/);
    expect(await works(token)).toBe(true);
    await expect(rotateClientSecret(server.runtime.database.db, 'sbc_nobody')).rejects.toThrow(/Unknown client/);
    await own.close();
  });
});
