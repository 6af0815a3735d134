import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type { Db } from '../db/client.js';
import { signingKeys } from './tables.js';

export const SIGNING_ALG = 'ES256';
// Arbitrary constant naming "signing key bootstrap" for pg_advisory_xact_lock.
const KEYS_LOCK_ID = 724_061_339;

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  /** Every active public key, for verification and /.well-known/jwks.json. */
  publicKeys: Map<string, CryptoKey>;
  jwks: { keys: JWK[] };
}

/**
 * Keys are shared by every instance (DESIGN section 2): from JWT_PRIVATE_JWK when given, else
 * generated once and kept in the database. Concurrent first starts race on insert; every
 * instance then signs with the oldest active key.
 */
export async function loadSigningKeys(db: Db, configuredPrivateJwk?: string): Promise<SigningKeys> {
  // Serialized across instances, so racing first starts agree on one key.
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK_ID})`);
    if (configuredPrivateJwk) {
      const jwk = JSON.parse(configuredPrivateJwk) as JWK;
      const kid = jwk.kid ?? 'configured';
      const { d: _d, ...publicJwk } = jwk;
      await tx.insert(signingKeys).values({ kid, alg: SIGNING_ALG, privateJwk: jwk, publicJwk }).onConflictDoNothing();
      return;
    }
    const existing = await tx.select({ kid: signingKeys.kid }).from(signingKeys).where(eq(signingKeys.active, true)).limit(1);
    if (existing.length > 0) return;
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = randomUUID();
    await tx.insert(signingKeys).values({
      kid,
      alg: SIGNING_ALG,
      privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG },
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' },
    });
  });
  const rows = await db.select().from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  const signer = configuredPrivateJwk ? rows.find((r) => r.kid === ((JSON.parse(configuredPrivateJwk) as JWK).kid ?? 'configured')) : rows[0];
  if (!signer) throw new Error('No active signing key');
  const publicKeys = new Map<string, CryptoKey>();
  const jwks: JWK[] = [];
  for (const row of rows) {
    const publicJwk = { ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' };
    publicKeys.set(row.kid, (await importJWK(publicJwk, row.alg)) as CryptoKey);
    jwks.push(publicJwk);
  }
  return {
    kid: signer.kid,
    privateKey: (await importJWK(signer.privateJwk as JWK, signer.alg)) as CryptoKey,
    publicKeys,
    jwks: { keys: jwks },
  };
}
