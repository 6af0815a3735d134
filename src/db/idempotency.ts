import { createHash } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import { AppError, conflict, type ErrorDetail } from '../errors/app-error.js';
import type { Database, Db, Queryable, Tx } from './client.js';
import { idempotencyKeys } from './tables.js';

// Idempotency keys as the IETF Idempotency-Key draft and Stripe treat them, for every write: a
// key is kept 24 h, scoped to the app and the client; the first answer of an executed request is
// stored and replayed for the same request; the same key with another request is 422; a request
// still in flight with the key is 409. A request refused before its write ran (validation, auth,
// conflict) stores nothing, so the corrected request may reuse the key. A claim whose request
// died before its write committed goes stale after 5 minutes and may be taken over by the same
// request; one whose write committed never runs again.

export const KEY_RETENTION_MS = 24 * 3_600_000;
export const STALE_CLAIM_MS = 5 * 60_000;
/** How often one process deletes expired keys (claims take over expired rows before then anyway). */
const PRUNE_EVERY_MS = 60_000;

export const KEY_HEADER = 'Idempotency-Key';
export const KEY_MESSAGE = 'must be 1 to 255 visible ASCII characters';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Why `value` is no usable key (1 to 255 visible ASCII characters), as an error detail on `field`. */
export function keyProblem(value: string, field: string = KEY_HEADER): ErrorDetail | undefined {
  return KEY_PATTERN.test(value) ? undefined : { field, code: 'invalid_format', message: KEY_MESSAGE };
}

/** Canonical JSON (object keys sorted, recursively) hashed: key order never changes the hash. */
export function requestHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The first answer as it is replayed: status, the headers that belong to it, the body's text. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Who owns a key: the app the request names ('' for none), the authenticated client, the key. */
export interface KeyScope {
  appId: string;
  clientId: string;
  key: string;
}

/** A key held by the running request. */
export class KeyClaim {
  /** True once a write transaction that marked the key applied has committed. */
  applied = false;
  /**
   * True once the request did something outside the database that a rerun would repeat (a message
   * handed to the provider): its key is then not freed when the write fails, but left to go stale.
   */
  reachedOutside = false;

  constructor(
    readonly scope: KeyScope,
    readonly claimedAt: Date,
  ) {}

  /** Marks the key applied inside the write's transaction: the write and its key commit together. */
  async markApplied(tx: Queryable): Promise<void> {
    await tx.update(idempotencyKeys).set({ state: 'applied' }).where(ours(this));
  }
}

/** What a request knows of its key: the claim, if its request carried one. */
export interface WriteContext {
  runtime: { database: Database };
  idempotency?: KeyClaim | undefined;
}

/**
 * A service's write transaction: with a claimed key, the key is marked applied in it, so a write
 * that committed is never run again for a retry, even when its answer was never stored.
 */
export function writeTransaction<T>(ctx: WriteContext, write: (tx: Tx) => Promise<T>): Promise<T> {
  return keyedTransaction(ctx.runtime.database.db, ctx.idempotency, write);
}

/** writeTransaction for a service that is given its database handle and the request's claim. */
export async function keyedTransaction<T>(db: Db, claim: KeyClaim | undefined, write: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await db.transaction(async (tx) => {
    const value = await write(tx);
    if (claim) await claim.markApplied(tx);
    return value;
  });
  if (claim) claim.applied = true;
  return result;
}

/**
 * Claims the key for this request, or returns the stored answer to replay. The claim is one
 * statement (insert, or take over an expired row or a stale unapplied one of the same request),
 * so two requests, on one instance or two, never both hold it.
 */
export async function claimKey(db: Queryable, scope: KeyScope, fingerprint: string, now: Date): Promise<{ claim: KeyClaim } | { replay: StoredAnswer }> {
  await pruneNow(db, now);
  const expiredBefore = new Date(now.getTime() - KEY_RETENTION_MS).toISOString();
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
  for (let attempt = 0; attempt < 3; attempt++) {
    const [claimed] = await db
      .insert(idempotencyKeys)
      .values({ ...scope, fingerprint, state: 'in_flight', response: null, claimedAt: now, createdAt: now })
      .onConflictDoUpdate({
        target: [idempotencyKeys.appId, idempotencyKeys.clientId, idempotencyKeys.key],
        set: { fingerprint, state: 'in_flight', response: null, claimedAt: now, createdAt: now },
        setWhere: sql`${idempotencyKeys.createdAt} < ${expiredBefore}::timestamptz
          or (${idempotencyKeys.state} = 'in_flight' and ${idempotencyKeys.claimedAt} < ${staleBefore}::timestamptz
              and ${idempotencyKeys.fingerprint} = ${fingerprint})`,
      })
      .returning({ claimedAt: idempotencyKeys.claimedAt });
    if (claimed) return { claim: new KeyClaim(scope, claimed.claimedAt) };

    const [existing] = await db.select().from(idempotencyKeys).where(byScope(scope)).limit(1);
    if (!existing) continue; // released between the two statements: claim again
    if (existing.fingerprint !== fingerprint) {
      throw new AppError('idempotency_key_reused', `This ${KEY_HEADER} was already used with a different request (method, path or body)`);
    }
    if (existing.state === 'in_flight' || (existing.state === 'applied' && existing.claimedAt.getTime() >= now.getTime() - STALE_CLAIM_MS)) {
      throw conflict(`A request with this ${KEY_HEADER} is still in progress; retry later`);
    }
    if (existing.state === 'applied') {
      throw conflict(`The request with this ${KEY_HEADER} was applied but its answer was not recorded; read the resource for its state`);
    }
    if (!existing.response) throw conflict(`The request with this ${KEY_HEADER} was executed; its answer was too large to keep for replay`);
    return { replay: existing.response as StoredAnswer };
  }
  throw conflict(`A request with this ${KEY_HEADER} is still in progress; retry later`);
}

/** Stores the answer to replay (undefined: executed, but too large to keep). */
export async function completeClaim(db: Queryable, claim: KeyClaim, answer: StoredAnswer | undefined): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: 'completed', response: answer ?? null })
    .where(ours(claim));
}

/** Frees the key after a request whose write did not commit (nothing stored: a retry runs again). */
export async function releaseClaim(db: Queryable, claim: KeyClaim): Promise<void> {
  await db.delete(idempotencyKeys).where(and(ours(claim), eq(idempotencyKeys.state, 'in_flight')));
}

/** Releases waiting to be tried again, at most: past it, a claim is left to go stale. */
const MAX_PENDING_RELEASES = 1000;
/** Waits between attempts (the last one repeats): fast while a dropped connection is replaced, then every 2 s. */
const RELEASE_RETRY_MS = [50, 100, 200, 400, 800, 1600, 2000];
let pendingReleases = 0;

/**
 * Frees a key whose request did not commit, trying again until it can. A request that failed
 * because the database went away (or its pooled connection died under it) cannot free its key
 * at that moment, and every retry of it would then be refused as still in progress until the
 * claim went stale, minutes later. The first attempt is awaited; after a failure the release is
 * tried again in the background until it succeeds or the claim would be stale anyway. A release
 * deletes only its own claim while it is still in flight, so a late one never frees a key whose
 * write committed.
 */
export async function releaseUntilDone(release: () => Promise<unknown>, logger: { warn(o: object, m: string): void; error(o: object, m: string): void }): Promise<void> {
  try {
    await release();
    return;
  } catch (error) {
    if (pendingReleases >= MAX_PENDING_RELEASES) {
      logger.error({ err: error }, 'could not release an idempotency key; it frees itself when its claim goes stale');
      return;
    }
    logger.warn({ err: error }, 'could not release an idempotency key yet; trying again');
  }
  pendingReleases++;
  const giveUpAt = Date.now() + STALE_CLAIM_MS;
  const attempt = (n: number) => {
    setTimeout(() => {
      release().then(
        () => pendingReleases--,
        (error: unknown) => {
          if (Date.now() < giveUpAt && !handleClosed(error)) return attempt(n + 1);
          pendingReleases--;
          logger.error({ err: error }, 'could not release an idempotency key; it frees itself when its claim goes stale');
        },
      );
    }, RELEASE_RETRY_MS[Math.min(n, RELEASE_RETRY_MS.length - 1)]).unref();
  };
  attempt(0);
}

/** The database handle was closed (the process is shutting down): no later attempt can succeed. */
function handleClosed(error: unknown): boolean {
  // drizzle wraps the driver's error as its cause.
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code === 'CONNECTION_ENDED' || /pglite is closed/i.test(String(e.message))) return true;
  }
  return false;
}

const byScope = (scope: KeyScope) =>
  and(eq(idempotencyKeys.appId, scope.appId), eq(idempotencyKeys.clientId, scope.clientId), eq(idempotencyKeys.key, scope.key));
const ours = (claim: KeyClaim) => and(byScope(claim.scope), eq(idempotencyKeys.claimedAt, claim.claimedAt));

const lastPrune = new WeakMap<Queryable, number>();

/** Deletes keys past their retention, at most once a minute per process and database handle. */
async function pruneNow(db: Queryable, now: Date): Promise<void> {
  const last = lastPrune.get(db);
  if (last !== undefined && now.getTime() - last < PRUNE_EVERY_MS && now.getTime() >= last) return;
  lastPrune.set(db, now.getTime());
  await pruneExpiredKeys(db, now);
}

/** Deletes every key older than the retention; returns how many. */
export async function pruneExpiredKeys(db: Queryable, now: Date): Promise<number> {
  const deleted = await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - KEY_RETENTION_MS)))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}
