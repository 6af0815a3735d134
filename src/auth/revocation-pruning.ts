import { inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { deleteInBatches, PRUNE_BATCH, PRUNE_BATCHES_PER_RUN, type PruneJob } from '../db/pruning.js';
import { revokedTokens } from './tables.js';

/**
 * Deletes revocations of tokens that expired before `before`, in bounded batches; returns how
 * many. Such a token is refused as expired whatever the table says, so its row only took space:
 * a client that issues and revokes tokens in a loop would otherwise grow the table for ever.
 */
export async function pruneRevocations(db: Db, before: Date, batches = PRUNE_BATCHES_PER_RUN, stopped: () => boolean = () => false): Promise<number> {
  const deleteBatch = async () => {
    const expired = db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(lt(revokedTokens.expiresAt, before)).limit(PRUNE_BATCH);
    const rows = await db.delete(revokedTokens).where(inArray(revokedTokens.jti, expired)).returning({ one: sql`1` });
    return rows.length;
  };
  return deleteInBatches(deleteBatch, batches, stopped);
}

export const revocationPruneJob = (db: Db): PruneJob => ({
  what: 'revocations of expired tokens',
  prune: (now, stopped) => pruneRevocations(db, now, PRUNE_BATCHES_PER_RUN, stopped),
});
