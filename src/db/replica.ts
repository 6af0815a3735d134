import type postgres from 'postgres';

export interface ReplicaLag {
  /** Age of the last replayed transaction; 0 when everything received is applied. */
  seconds: number;
  /** WAL received but not yet replayed. */
  bytes: number;
}

/**
 * How far a streaming replica is behind, asked of the replica itself. A replica idle because the
 * primary is idle has replayed all it received and reports 0, not the age of the last write.
 * Throws when the server is not a replica: DATABASE_REPLICA_URL naming the primary is a mistake.
 */
export async function replicaLag(sql: postgres.Sql, timeoutMs = 2000): Promise<ReplicaLag> {
  const query = sql<{ recovery: boolean; seconds: number | null; bytes: string | null }[]>`
    select pg_is_in_recovery() as recovery,
      case when pg_last_wal_receive_lsn() is null or pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
        else greatest(0, extract(epoch from now() - pg_last_xact_replay_timestamp()))::float8 end as seconds,
      greatest(0, coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0))::text as bytes`;
  let timer: NodeJS.Timeout | undefined;
  // A scrape waits for no replica that stopped answering (postgres.js would try to reconnect for 10 s).
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the replica did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const [row] = await Promise.race([query, timeout]);
    if (!row?.recovery) throw new Error('DATABASE_REPLICA_URL is not a replica (pg_is_in_recovery() is false)');
    return { seconds: row.seconds ?? 0, bytes: Number(row.bytes ?? 0) };
  } finally {
    clearTimeout(timer);
  }
}
