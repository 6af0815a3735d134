import { randomBytes, scryptSync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rotateClientSecret } from '../../src/apps/service.js';
import { oauthClients } from '../../src/auth/tables.js';
import { request } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

/** Client secrets: a keyed hash (HMAC-SHA256), old scrypt hashes upgraded on first use. */
const { server } = useServer();

const storedHash = async (clientId: string) =>
  (await server.runtime.database.db.select({ h: oauthClients.secretHash }).from(oauthClients).where(eq(oauthClients.id, clientId)))[0]!.h;

const token = (url: string, clientId: string, clientSecret: string) =>
  request(`${url}/api/v1/oauth/token`, { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });

/** The hash format of the earlier scheme, as it was stored: "scrypt$N$r$p$salt$key". */
function legacyScryptHash(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

describe('client secret hashes', () => {
  it('new clients and rotated secrets are stored as a keyed hash, never the secret', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'] });
    const hash = await storedHash(tenant.clientId);
    expect(hash).toMatch(/^hmac-sha256\$[\w-]{43}$/);
    expect(hash).not.toContain(tenant.clientSecret.slice(4));
    const rotated = await rotateClientSecret(server.runtime.database.db, tenant.clientId);
    expect(await storedHash(tenant.clientId)).toMatch(/^hmac-sha256\$/);
    expect(await storedHash(tenant.clientId)).not.toBe(hash);
    expect((await token(server.url, tenant.clientId, tenant.clientSecret)).status).toBe(401);
    expect((await token(server.url, tenant.clientId, rotated.client_secret)).status).toBe(200);
  });

  it('a client stored with the old scrypt hash still gets a token, and its hash is then the keyed one', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'] });
    const legacy = legacyScryptHash(tenant.clientSecret);
    await server.runtime.database.db.update(oauthClients).set({ secretHash: legacy }).where(eq(oauthClients.id, tenant.clientId));
    // A wrong secret against the old hash: refused, and the hash is left as it was.
    expect((await token(server.url, tenant.clientId, 'wrong')).status).toBe(401);
    expect(await storedHash(tenant.clientId)).toBe(legacy);
    expect((await token(server.url, tenant.clientId, tenant.clientSecret)).status).toBe(200);
    const upgraded = await storedHash(tenant.clientId);
    expect(upgraded).toMatch(/^hmac-sha256\$/);
    // The upgraded hash verifies the same secret, and only it.
    expect((await token(server.url, tenant.clientId, tenant.clientSecret)).status).toBe(200);
    expect(await storedHash(tenant.clientId)).toBe(upgraded);
    expect((await token(server.url, tenant.clientId, `${tenant.clientSecret}x`)).status).toBe(401);
  });

  it.skipIf(!process.env.DATABASE_URL)('every instance on one database shares the key: a secret hashed by one verifies at another', async () => {
    const second = await startTestServer({ DATABASE_URL: server.databaseUrl! });
    try {
      const tenant = await server.tenant({ scopes: ['oauth:revoke'] });
      expect((await token(second.url, tenant.clientId, tenant.clientSecret)).status).toBe(200);
      const other = await second.tenant({ scopes: ['oauth:revoke'] });
      expect((await token(server.url, other.clientId, other.clientSecret)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
