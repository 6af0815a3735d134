import { randomUUID } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type { Db } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
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
  /** Reloads the key set when a token names a kid this instance does not know (rotation elsewhere). */
  onUnknownKid?: () => Promise<void>;
}

/**
 * Keys are shared by every instance (DESIGN section 2): from JWT_PRIVATE_JWK when given, else
 * generated once and kept in the database (first starts are serialized by an advisory lock).
 * The newest active key signs; older active keys still verify until they are retired
 * (`keys rotate` retires those whose tokens have all expired; `keys retire --kid`).
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
  return readSigningKeys(db, configuredPrivateJwk);
}

async function readSigningKeys(db: Db, configuredPrivateJwk?: string): Promise<SigningKeys> {
  const rows = await db.select().from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  const signer = configuredPrivateJwk ? rows.find((r) => r.kid === ((JSON.parse(configuredPrivateJwk) as JWK).kid ?? 'configured')) : rows.at(-1);
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

/** Re-reads the key set into `keys` (in place: every holder of the object sees the new set). */
export async function refreshSigningKeys(db: Db, keys: SigningKeys, configuredPrivateJwk?: string): Promise<void> {
  const fresh = await readSigningKeys(db, configuredPrivateJwk);
  keys.kid = fresh.kid;
  keys.privateKey = fresh.privateKey;
  keys.publicKeys = fresh.publicKeys;
  keys.jwks = fresh.jwks;
}

/**
 * Adds a new signing key (it signs from each instance's next key refresh) and retires older keys
 * whose every token has expired: a key is retired once a newer key has existed for longer than
 * the token lifetime plus the refresh interval (instances may sign with the old key until they
 * refresh). Returns the new kid and the retired ones.
 */
export async function rotateSigningKeys(db: Db, graceSeconds: number): Promise<{ kid: string; retired: string[] }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK_ID})`);
    const active = await tx.select({ kid: signingKeys.kid, createdAt: signingKeys.createdAt }).from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt));
    const cutoff = Date.now() - graceSeconds * 1000;
    // Keys followed by a successor created before the cutoff signed nothing still valid.
    const retired = active.filter((key, i) => i < active.length - 1 && active[i + 1]!.createdAt.getTime() <= cutoff).map((k) => k.kid);
    for (const kid of retired) await tx.update(signingKeys).set({ active: false }).where(eq(signingKeys.kid, kid));
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = randomUUID();
    await tx.insert(signingKeys).values({
      kid,
      alg: SIGNING_ALG,
      privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG },
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' },
    });
    return { kid, retired };
  });
}

/** Retires a key: its tokens stop verifying on every instance's next refresh. Never the newest. */
export async function retireSigningKey(db: Db, kid: string): Promise<{ kid: string; active: false }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK_ID})`);
    const active = await tx.select({ kid: signingKeys.kid }).from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt));
    if (!active.some((k) => k.kid === kid)) throw new AppError('not_found', `No active signing key ${kid}`);
    if (active.at(-1)!.kid === kid) throw new AppError('conflict', `${kid} is the newest key, which signs: rotate first`);
    await tx.update(signingKeys).set({ active: false }).where(eq(signingKeys.kid, kid));
    return { kid, active: false as const };
  });
}
