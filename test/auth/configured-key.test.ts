import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyGraceSeconds, loadSigningKeys, refreshSigningKeys, retireSigningKey } from '../../src/auth/keys.js';
import { loadConfig } from '../../src/config.js';
import { gql, request } from '../helpers/http.js';
import { createFreshDatabase, startTestServer, type TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

// JWT_PRIVATE_JWK must be an ES256 private JWK (docs/operations.md): anything else is refused at
// start-up, nothing secret reaches the JWKS, and a changed key is the signing key on restart.

const ecKey = (namedCurve = 'P-256') => generateKeyPairSync('ec', { namedCurve }).privateKey.export({ format: 'jwk' }) as Record<string, string>;
const withoutD = ({ d: _d, ...rest }: Record<string, string>) => rest;
const jwksOf = async (server: TestServer) => (await request(`${server.url}/.well-known/jwks.json`)).body.keys as JWK[];

describe('JWT_PRIVATE_JWK validation', () => {
  const a = ecKey();
  const b = ecKey();
  it.each([
    ['not JSON', '{kty:EC', /not valid JSON/],
    ['a JSON array', '[]', /JSON object/],
    ['a symmetric key', JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }), /EC P-256/],
    ['an RSA key', JSON.stringify(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })), /EC P-256/],
    ['a P-384 key', JSON.stringify(ecKey('P-384')), /EC P-256/],
    ['a public key only', JSON.stringify(withoutD(a)), /"d"/],
    ['x and y of another key', JSON.stringify({ ...a, x: b.x, y: b.y }), /not the public key/],
    ['a d that is no P-256 scalar', JSON.stringify({ ...a, d: 'AAAA' }), /"d" is not a valid P-256/],
    ['another alg', JSON.stringify({ ...a, alg: 'HS256' }), /alg/],
  ])('refuses %s in one line, quoting no key material', (_name, value, message) => {
    let thrown: Error | undefined;
    try {
      loadConfig({ DATA_DIR: 'memory', JWT_PRIVATE_JWK: value });
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.name).toBe('ConfigError');
    expect(thrown?.message).toMatch(/^Invalid configuration: JWT_PRIVATE_JWK: /);
    expect(thrown?.message).toMatch(message);
    expect(thrown?.message).not.toContain('\n');
    expect(thrown?.message).not.toContain(a.d);
    expect(thrown?.message).not.toContain('c2VjcmV0');
  });

  it('accepts an ES256 private JWK, with or without kid/alg/use', () => {
    expect(loadConfig({ DATA_DIR: 'memory', JWT_PRIVATE_JWK: JSON.stringify(a) }).JWT_PRIVATE_JWK).toBeDefined();
    expect(loadConfig({ DATA_DIR: 'memory', JWT_PRIVATE_JWK: JSON.stringify({ ...a, kid: 'k1', alg: 'ES256', use: 'sig' }) }).JWT_PRIVATE_JWK).toBeDefined();
  });
});

describe('the key store behind the configuration', () => {
  const { server } = useServer();

  it('refuses a symmetric or public-only key even when called directly, and publishes nothing', async () => {
    const db = server.runtime.database.db;
    await expect(loadSigningKeys(db, JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }))).rejects.toThrow(/^Invalid configuration: JWT_PRIVATE_JWK: /);
    await expect(loadSigningKeys(db, JSON.stringify(withoutD(ecKey())))).rejects.toThrow(/"d"/);
    const keys = await loadSigningKeys(db); // the generated key, unchanged
    expect(keys.jwks.keys.map((k) => k.kty)).toEqual(['EC']);
  });

  it('publishes only kty, crv, x, y, kid, alg and use of a configured key', async () => {
    const configured = await startTestServer({ JWT_PRIVATE_JWK: JSON.stringify({ ...ecKey(), kid: 'mine', key_ops: ['sign'], ext: true }) });
    try {
      const jwks = await jwksOf(configured);
      expect(jwks).toHaveLength(1);
      expect(Object.keys(jwks[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      expect(jwks[0]).toMatchObject({ kid: 'mine', alg: 'ES256', use: 'sig', kty: 'EC', crv: 'P-256' });
      const tenant = await configured.tenant();
      expect(decodeProtectedHeader(tenant.accessToken).kid).toBe('mine');
    } finally {
      await configured.close();
    }
  });
});

describe('changing JWT_PRIVATE_JWK on existing storage', () => {
  // The same storage across restarts: a PGlite DATA_DIR, or one PostgreSQL database.
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createFreshDatabase>> | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-keys-'));
    if (process.env.DATABASE_URL) database = await createFreshDatabase(process.env.DATABASE_URL);
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  // `storage` names a store of its own: a subfolder of dataDir, or the second PostgreSQL database.
  let otherDatabase: Awaited<ReturnType<typeof createFreshDatabase>> | undefined;
  afterAll(async () => otherDatabase?.drop());
  const start = async (jwk: Record<string, string>, storage: 'db' | 'other' = 'db') => {
    if (storage === 'other' && process.env.DATABASE_URL) otherDatabase ??= await createFreshDatabase(process.env.DATABASE_URL);
    const url = storage === 'other' ? otherDatabase?.url : database?.url;
    return startTestServer({ JWT_PRIVATE_JWK: JSON.stringify(jwk), ...(url ? { DATABASE_URL: url } : { DATA_DIR: path.join(dataDir, storage) }) });
  };
  const works = async (server: TestServer, token: string) => (await gql(server.url, token, '{ viewer { clientId } }')).status;
  const signedBy = async (token: string, jwk: Record<string, string>) =>
    jwtVerify(token, await importJWK(withoutD(jwk), 'ES256'), { algorithms: ['ES256'] }).then(
      () => true,
      () => false,
    );

  it('the new key signs; the replaced one verifies until its grace ends; an unchanged restart keeps tokens', async () => {
    const first = ecKey();
    const second = ecKey();

    const one = await start(first);
    const tenant = await one.tenant();
    const oldToken = tenant.accessToken;
    expect(await signedBy(oldToken, first)).toBe(true);
    expect((await jwksOf(one)).map((k) => k.x)).toEqual([first.x]);
    await one.close();

    // Restarted with another key (a rolling restart: instances not yet restarted still sign with
    // the first): the second signs, both are published, and the first's tokens still work.
    const two = await start(second);
    const jwks = await jwksOf(two);
    expect(jwks.map((k) => k.x)).toEqual([first.x, second.x]);
    const newToken = await two.client({ apps: [tenant.appId], scopes: ['messages:read'] }).then((c) => c.token());
    expect(await signedBy(newToken, second)).toBe(true);
    expect(decodeProtectedHeader(newToken).kid).toBe(jwks[1]!.kid);
    expect(decodeProtectedHeader(newToken).kid).not.toBe(decodeProtectedHeader(oldToken).kid);
    expect(await works(two, newToken)).toBe(200);
    expect(await works(two, oldToken)).toBe(200);

    // Once the grace (token lifetime + key refresh) has passed, a refresh retires the first key.
    const { db } = two.runtime.database;
    await refreshSigningKeys(db, two.runtime.keys, JSON.stringify(second), keyGraceSeconds(two.runtime.config));
    expect((await jwksOf(two)).map((k) => k.x)).toEqual([first.x, second.x]);
    await refreshSigningKeys(db, two.runtime.keys, JSON.stringify(second), 0);
    expect((await jwksOf(two)).map((k) => k.x)).toEqual([second.x]);
    expect(await works(two, oldToken)).toBe(401);
    expect(await works(two, newToken)).toBe(200);
    await two.close();

    // Restarted with the same key: nothing changes, its tokens keep working.
    const three = await start(second);
    expect((await jwksOf(three)).map((k) => k.x)).toEqual([second.x]);
    expect(await works(three, newToken)).toBe(200);
    await three.close();

    // A retired key is not brought back (its old tokens would verify again).
    await expect(start(first)).rejects.toThrow(/JWT_PRIVATE_JWK: this key .* was retired/);
  }, 60_000);

  it('keys retire ends a replaced key at once; going back to a key still active retires the newer one', async () => {
    const [a, b, c] = [ecKey(), ecKey(), ecKey()];
    const one = await start(a, 'other');
    const tenant = await one.tenant();
    const tokenA = tenant.accessToken;
    await one.close();

    // A compromised key: replaced, then retired by hand without waiting for its grace.
    const two = await start(b, 'other');
    const kidA = decodeProtectedHeader(tokenA).kid!;
    await retireSigningKey(two.runtime.database.db, kidA);
    await refreshSigningKeys(two.runtime.database.db, two.runtime.keys, JSON.stringify(b), keyGraceSeconds(two.runtime.config));
    expect((await jwksOf(two)).map((k) => k.x)).toEqual([b.x]);
    expect(await works(two, tokenA)).toBe(401);
    const tokenB = await two.client({ apps: [tenant.appId], scopes: ['messages:read'] }).then((cl) => cl.token());
    await two.close();

    // b replaced by c, then c rolled back to b within the grace: b must be the newest to sign, so
    // c is retired at once; b's tokens keep working.
    const three = await start(c, 'other');
    const tokenC = await three.client({ apps: [tenant.appId], scopes: ['messages:read'] }).then((cl) => cl.token());
    expect((await jwksOf(three)).map((k) => k.x)).toEqual([b.x, c.x]);
    await three.close();
    const four = await start(b, 'other');
    expect((await jwksOf(four)).map((k) => k.x)).toEqual([b.x]);
    expect(await works(four, tokenB)).toBe(200);
    expect(await works(four, tokenC)).toBe(401);
    const tokenB2 = await four.client({ apps: [tenant.appId], scopes: ['messages:read'] }).then((cl) => cl.token());
    expect(await signedBy(tokenB2, b)).toBe(true);
    await four.close();
  }, 60_000);
});
