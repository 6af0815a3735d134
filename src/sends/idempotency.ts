import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { KEY_RETENTION_MS, STALE_CLAIM_MS } from '../db/idempotency.js';
import { conflict } from '../errors/app-error.js';
import { sendIdempotencyKeys } from './tables.js';

// The send mutations' own idempotencyKey argument, on the rules of every write's key
// (db/idempotency.ts): a key is kept 24 h; the first response is stored and replayed for the same
// body; a different body is 409 conflict (sends answered so before every write took a key); a
// request still in flight with the key is 409; nothing is stored when the request fails (validation, window, conflict), so the
// corrected request may reuse the key. A claim whose request died (process killed mid-send)
// goes stale after 5 minutes and may be taken over by the same body.

export { KEY_RETENTION_MS, requestHash, STALE_CLAIM_MS } from '../db/idempotency.js';

export interface Claim {
  appId: string;
  key: string;
  claimedAt: Date;
}

/**
 * Claims the key for this request, or returns the stored response to replay. The claim is one
 * statement (insert, or take over an expired or stale row), so two requests never both hold it.
 */
export async function claimKey(
  db: Queryable,
  appId: string,
  key: string,
  hash: string,
  now: Date,
): Promise<{ claim: Claim } | { replay: unknown }> {
  const expiredBefore = new Date(now.getTime() - KEY_RETENTION_MS).toISOString();
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
  const [claimed] = await db
    .insert(sendIdempotencyKeys)
    .values({ appId, key, requestHash: hash, state: 'in_flight', response: null, claimedAt: now, createdAt: now })
    .onConflictDoUpdate({
      target: [sendIdempotencyKeys.appId, sendIdempotencyKeys.key],
      set: { requestHash: hash, state: 'in_flight', response: null, claimedAt: now, createdAt: now },
      setWhere: sql`${sendIdempotencyKeys.createdAt} < ${expiredBefore}::timestamptz
        or (${sendIdempotencyKeys.state} = 'in_flight' and ${sendIdempotencyKeys.claimedAt} < ${staleBefore}::timestamptz
            and ${sendIdempotencyKeys.requestHash} = ${hash})`,
    })
    .returning({ claimedAt: sendIdempotencyKeys.claimedAt });
  if (claimed) return { claim: { appId, key, claimedAt: claimed.claimedAt } };

  const [existing] = await db
    .select()
    .from(sendIdempotencyKeys)
    .where(and(eq(sendIdempotencyKeys.appId, appId), eq(sendIdempotencyKeys.key, key)))
    .limit(1);
  if (!existing) return claimKey(db, appId, key, hash, now); // released between the two statements
  if (existing.requestHash !== hash) throw conflict('This Idempotency-Key was already used with a different request body');
  if (existing.state !== 'completed') throw conflict('A request with this Idempotency-Key is still in progress; retry later');
  return { replay: existing.response };
}

/** Stores the response to replay, inside the transaction of the send it belongs to. */
export async function completeClaim(tx: Queryable, claim: Claim, response: unknown): Promise<void> {
  await tx
    .update(sendIdempotencyKeys)
    .set({ state: 'completed', response })
    .where(and(...ours(claim)));
}

/** Frees the key after a failed request (nothing was stored, so a retry may run again). */
export async function releaseClaim(db: Queryable, claim: Claim): Promise<void> {
  await db.delete(sendIdempotencyKeys).where(and(...ours(claim), eq(sendIdempotencyKeys.state, 'in_flight')));
}

const ours = (claim: Claim) => [
  eq(sendIdempotencyKeys.appId, claim.appId),
  eq(sendIdempotencyKeys.key, claim.key),
  eq(sendIdempotencyKeys.claimedAt, claim.claimedAt),
];
