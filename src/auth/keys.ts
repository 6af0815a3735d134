import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, ne, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import { cursorKeyOf } from '../db/cursor.js';
import { ConfigError, parseSigningJwk, type Config, type SigningJwk } from '../config.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { signingKeys } from './tables.js';

export const SIGNING_ALG = 'ES256';

/**
 * How long a replaced key keeps verifying: a token it signed lives TOKEN_TTL_SECONDS, and an
 * instance may sign with it until its next key refresh (KEYS_RELOAD_MS).
 */
export const keyGraceSeconds = (config: Pick<Config, 'TOKEN_TTL_SECONDS' | 'KEYS_RELOAD_MS'>) =>
  config.TOKEN_TTL_SECONDS + Math.ceil(config.KEYS_RELOAD_MS / 1000);
// Arbitrary constant naming "signing key bootstrap" for pg_advisory_xact_lock.
const KEYS_LOCK_ID = 724_061_339;

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  /** Every active public key, for verification and /.well-known/jwks.json. */
  publicKeys: Map<string, CryptoKey>;
  jwks: { keys: JWK[] };
  /** Keyset cursor HMAC keys derived from the active keys, the signer's first (db/cursor.ts). */
  cursorKeys: Buffer[];
  /** Reloads the key set when a token names a kid this instance does not know (rotation elsewhere). */
  onUnknownKid?: () => Promise<void>;
}

/**
 * Keys are shared by every instance, so any of them verifies any token: from JWT_PRIVATE_JWK when given, else
 * generated once and kept in the database (first starts are serialized by an advisory lock).
 * The newest active key signs; older active keys still verify until they are retired
 * (`keys rotate` retires those whose tokens have all expired; `keys retire --kid`).
 * `graceSeconds` is how long a replaced key keeps verifying (token lifetime + key refresh).
 */
export async function loadSigningKeys(db: Db, configuredPrivateJwk?: string, graceSeconds = 0): Promise<SigningKeys> {
  const configured = configuredPrivateJwk === undefined ? undefined : await readConfiguredJwk(configuredPrivateJwk);
  // Serialized across instances, so racing first starts agree on one key.
  const signerKid = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK_ID})`);
    if (configured) return storeConfiguredKey(tx, configured, graceSeconds);
    const existing = await tx.select({ kid: signingKeys.kid }).from(signingKeys).where(eq(signingKeys.active, true)).limit(1);
    if (existing.length === 0) await insertGeneratedKey(tx);
    return undefined;
  });
  return readSigningKeys(db, signerKid);
}

/** A new ES256 key pair, stored active with a random kid; returns the kid. */
async function insertGeneratedKey(tx: Tx): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = randomUUID();
  await tx.insert(signingKeys).values({
    kid,
    alg: SIGNING_ALG,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' },
  });
  return kid;
}

/** JWT_PRIVATE_JWK, checked (config.ts refuses it already; this keeps direct callers safe). */
async function readConfiguredJwk(text: string): Promise<SigningJwk> {
  try {
    const jwk = parseSigningJwk(text);
    await importJWK(jwk, SIGNING_ALG);
    return jwk;
  } catch (error) {
    throw new ConfigError(`Invalid configuration: JWT_PRIVATE_JWK: ${(error as Error).message}`);
  }
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
const samePublicKey = (a: unknown, b: SigningJwk) => (a as JWK).crv === b.crv && (a as JWK).x === b.x && (a as JWK).y === b.y;

/**
 * The configured key is the signing key. A kid names one key for good (tokens carry it, and
 * JWKS consumers cache by it), so a key without "kid" is named by its RFC 7638 thumbprint: a
 * changed JWT_PRIVATE_JWK is a new kid, never a silent reuse of the stored key. (Keys stored
 * before this rule were named "configured"; that name is kept while the key is unchanged.)
 * A replaced key keeps verifying for `graceSeconds` after its successor was stored, as after
 * `keys rotate`: during a rolling restart the instances not yet restarted still sign with it,
 * and the tokens it signed stay good until they expire; then it is retired (by whichever instance
 * starts or refreshes its keys next). `keys retire --kid` ends it at once (a compromised key).
 * Going back to an earlier key that is still active retires the keys stored after it at once (it
 * must be the newest to sign). A retired key is never brought back. Returns the kid.
 */
async function storeConfiguredKey(tx: Tx, jwk: SigningJwk, graceSeconds: number): Promise<string> {
  const { d, kid: givenKid, ...publicMembers } = jwk;
  const rowOf = async (kid: string) => (await tx.select().from(signingKeys).where(eq(signingKeys.kid, kid)).limit(1))[0];
  let kid = givenKid;
  if (kid === undefined) {
    const legacy = await rowOf('configured');
    kid = legacy && samePublicKey(legacy.publicJwk, jwk) ? 'configured' : await calculateJwkThumbprint(publicMembers);
  }
  const stored = await rowOf(kid);
  if (stored && !samePublicKey(stored.publicJwk, jwk)) {
    throw new ConfigError(`Invalid configuration: JWT_PRIVATE_JWK: kid "${kid}" already names another signing key; give the new key its own kid`);
  }
  if (stored && !stored.active) {
    throw new ConfigError(`Invalid configuration: JWT_PRIVATE_JWK: this key (kid "${kid}") was retired and its tokens are refused; configure a new key`);
  }
  if (stored) {
    // Compared in SQL: created_at holds microseconds, a JavaScript Date only milliseconds.
    const storedAt = tx.select({ at: signingKeys.createdAt }).from(signingKeys).where(eq(signingKeys.kid, kid));
    await tx
      .update(signingKeys)
      .set({ active: false })
      .where(and(eq(signingKeys.active, true), ne(signingKeys.kid, kid), gt(signingKeys.createdAt, sql`(${storedAt})`)));
  } else {
    await tx.insert(signingKeys).values({
      kid,
      alg: SIGNING_ALG,
      privateJwk: { ...publicMembers, d, kid, alg: SIGNING_ALG },
      publicJwk: { ...publicMembers, kid, alg: SIGNING_ALG, use: 'sig' },
    });
  }
  await retireSuperseded(tx, graceSeconds);
  return kid;
}

/**
 * Retires every active key followed by a newer one stored more than `graceSeconds` ago: no
 * instance signs with it any more and every token it signed has expired. Returns their kids.
 */
async function retireSuperseded(tx: Tx, graceSeconds: number): Promise<string[]> {
  const active = await tx.select({ kid: signingKeys.kid, createdAt: signingKeys.createdAt }).from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  // created_at is the database's now(), so the cutoff is on real time too.
  const cutoff = Date.now() - graceSeconds * 1000;
  const retired = active.filter((key, i) => i < active.length - 1 && active[i + 1]!.createdAt.getTime() <= cutoff).map((k) => k.kid);
  for (const kid of retired) await tx.update(signingKeys).set({ active: false }).where(eq(signingKeys.kid, kid));
  return retired;
}

/** Only these members of a stored public JWK are published (a stored row is never trusted to hold no secret). */
const publicMembersOf = ({ kty, crv, x, y }: JWK) => ({ kty, crv, x, y });

/** The active keys; `signerKid` (the configured key) signs, else the newest. */
async function readSigningKeys(db: Db, signerKid?: string): Promise<SigningKeys> {
  const rows = await db.select().from(signingKeys).where(eq(signingKeys.active, true)).orderBy(asc(signingKeys.createdAt), asc(signingKeys.kid));
  const signer = signerKid === undefined ? rows.at(-1) : rows.find((r) => r.kid === signerKid);
  if (!signer) throw new Error(signerKid === undefined ? 'No active signing key' : `The configured signing key ${signerKid} was retired`);
  const publicKeys = new Map<string, CryptoKey>();
  const jwks: JWK[] = [];
  for (const row of rows) {
    const publicJwk = { ...publicMembersOf(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' };
    publicKeys.set(row.kid, (await importJWK(publicJwk, row.alg)) as CryptoKey);
    jwks.push(publicJwk);
  }
  const scalar = (row: (typeof rows)[number]) => (row.privateJwk as JWK).d ?? '';
  return {
    kid: signer.kid,
    privateKey: (await importJWK(signer.privateJwk as JWK, signer.alg)) as CryptoKey,
    publicKeys,
    jwks: { keys: jwks },
    cursorKeys: [signer, ...rows.filter((r) => r !== signer).reverse()].map((row) => cursorKeyOf(scalar(row))),
  };
}

/**
 * Re-reads the key set into `keys` (in place: every holder of the object sees the new set). With
 * JWT_PRIVATE_JWK, keys it replaced are retired here once their grace has passed.
 */
export async function refreshSigningKeys(db: Db, keys: SigningKeys, configuredPrivateJwk?: string, graceSeconds = 0): Promise<void> {
  if (configuredPrivateJwk !== undefined && keys.publicKeys.size > 1) {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${KEYS_LOCK_ID})`);
      await retireSuperseded(tx, graceSeconds);
    });
  }
  // With JWT_PRIVATE_JWK the signer stays the configured key, named at load (keys.kid).
  const fresh = await readSigningKeys(db, configuredPrivateJwk === undefined ? undefined : keys.kid);
  keys.kid = fresh.kid;
  keys.privateKey = fresh.privateKey;
  keys.publicKeys = fresh.publicKeys;
  keys.jwks = fresh.jwks;
  keys.cursorKeys = fresh.cursorKeys;
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
    // Keys followed by a successor created before the cutoff signed nothing still valid.
    const retired = await retireSuperseded(tx, graceSeconds);
    return { kid: await insertGeneratedKey(tx), retired };
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
