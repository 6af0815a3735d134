import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import lockfile from 'proper-lockfile';
import { DEFAULT_PAGE_POOL_MAX, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { drizzleOnPglite } from './pglite-driver.js';
import { preferPreparedStatements } from './prepared-statements.js';
import { reconnectBackoff } from './reconnect-backoff.js';
import { guardTypeFetch } from './type-fetch-guard.js';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** A database handle or an open transaction: services accept either. */
export type Queryable = Db | Tx;

export interface Database {
  kind: 'postgres' | 'pglite';
  db: Db;
  /**
   * The handle of the per-request authentication lookup (src/auth/access-tokens.ts). On PostgreSQL its
   * own connection, outside DB_POOL_MAX: the lookup waits behind no slow read of the pool, and is
   * planned once (a generic plan) instead of on every request as the pool's statements are. Its
   * plan cannot depend on an app's data: primary-key lookups of the tokens and clients asked
   * about. Embedded: `db` itself.
   */
  authDb: Db;
  /** postgres.js client when kind is postgres (LISTEN/NOTIFY, advisory locks). */
  pg?: postgres.Sql;
  url?: string;
  /**
   * A URL whose connections are sessions (DATABASE_DIRECT_URL, else DATABASE_URL): what outlives a
   * transaction (the migrations' advisory lock) cannot go through a transaction-mode pooler.
   */
  sessionUrl?: string;
  /** The client LISTEN runs on: a direct connection when DATABASE_URL is a pooler's. */
  listener?: postgres.Sql;
  /**
   * Analytics reads (lists, metrics, tags): the replica of DATABASE_REPLICA_URL, else `db`. It
   * lags the primary, so nothing that must see its own writes reads through it.
   */
  analyticsDb: Db;
  /**
   * Unfiltered keyset pages (an app's list in its order, with or without a cursor), which
   * src/db/keyset.ts sends here: one plan suits every app and cursor, the walk of the list's
   * (app_id, at, id) index, and planning it again took longer than the walk. On PostgreSQL a pool
   * of its own (DB_PAGE_POOL_MAX) whose statements are planned once (force_generic_plan);
   * `analyticsDb` when there is a replica, DB_PREPARE=0 or DB_PAGE_POOL_MAX=0. Embedded: `db`.
   */
  pageDb: Db;
  /** The replica's client, when there is one (its lag is exported on /metrics). */
  replica?: postgres.Sql;
  pglite?: PGlite;
  /** Statements sent through drizzle since start (tests assert N+1 freedom with it). */
  queries: { count: number };
  ping(): Promise<void>;
  close(): Promise<void>;
}

function countingLogger() {
  const queries = { count: 0 };
  return { queries, logger: { logQuery: () => void (queries.count += 1) } };
}

export class DataDirLockedError extends Error {
  constructor(dir: string) {
    super(
      `The embedded database in ${dir} is in use by another process (is the server running?). ` +
        'With embedded storage only one process can own DATA_DIR: stop the server, or run this before starting it, ' +
        'or set DATABASE_URL to use PostgreSQL.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** The extensions every embedded database loads (the migrations create them). */
export const pgliteExtensions = { btree_gist, pg_trgm };

export interface OpenOptions {
  /**
   * Gives a tarball of a data directory (PGlite's dumpDataDir) a new embedded database starts
   * from instead of an empty one: asked in memory, and for a data directory that holds nothing
   * yet (judged under its lock); an existing database opens as it is.
   */
  loadDataDir?: () => Blob | undefined;
  /** Called when the tarball did not load; the database then starts empty. */
  onLoadFailed?: (error: unknown) => void;
}

export type StorageConfig = Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DB_POOL_MAX' | 'DB_PREPARE'> &
  Partial<Pick<Config, 'DATABASE_DIRECT_URL' | 'DATABASE_REPLICA_URL' | 'DB_PAGE_POOL_MAX' | 'DB_STATEMENT_TIMEOUT_MS'>>;

export async function openDatabase(config: StorageConfig, logger: Logger, options: OpenOptions = {}): Promise<Database> {
  if (config.DATABASE_URL) return openPostgres(config.DATABASE_URL, config, logger);
  return openPglite(config.DATA_DIR, logger, options);
}

function openPostgres(url: string, config: StorageConfig, logger: Logger): Database {
  const statementTimeout = config.DB_STATEMENT_TIMEOUT_MS ? { statement_timeout: config.DB_STATEMENT_TIMEOUT_MS } : {};
  const client = (max: number, planCacheMode: 'force_custom_plan' | 'force_generic_plan', at = url) => {
    const sql = postgres(at, {
      max,
      prepare: config.DB_PREPARE,
      onnotice: (notice) => logger.debug({ notice: notice.message }, 'postgres notice'),
      connect_timeout: 10,
      backoff: reconnectBackoff,
      // How prepared statements are planned (see prepared-statements.ts), and no JIT: the reads
      // are short, and a plan whose estimate counts a branch it never runs would be compiled for
      // far longer than it runs. Only with prepared statements: poolers (DB_PREPARE=0) refuse
      // unknown startup parameters (docs/operations.md: set jit and statement_timeout per role).
      ...(config.DB_PREPARE ? { connection: { plan_cache_mode: planCacheMode, jit: 'off', ...statementTimeout } } : {}),
    });
    if (config.DB_PREPARE) preferPreparedStatements(sql);
    return sql;
  };
  // The pool: every statement planned for its actual values.
  const pg = client(config.DB_POOL_MAX, 'force_custom_plan');
  // Authentication's own connection (Database.authDb), opened on first use.
  const authPg = client(1, 'force_generic_plan');
  guardTypeFetch(logger);
  const { queries, logger: queryLogger } = countingLogger();
  const db = drizzlePostgres({ client: pg, schema, logger: queryLogger }) as unknown as Db;
  const authDb = drizzlePostgres({ client: authPg, schema, logger: queryLogger }) as unknown as Db;
  // LISTEN holds its connection for as long as the process runs: never a pooler's.
  const listener = config.DATABASE_DIRECT_URL
    ? postgres(config.DATABASE_DIRECT_URL, { max: 1, onnotice: () => {}, connect_timeout: 10, backoff: reconnectBackoff })
    : pg;
  const replica = config.DATABASE_REPLICA_URL ? client(config.DB_POOL_MAX, 'force_custom_plan', config.DATABASE_REPLICA_URL) : undefined;
  const analyticsDb = replica ? (drizzlePostgres({ client: replica, schema, logger: queryLogger }) as unknown as Db) : db;
  // Not beside a replica: the pages are analytics reads, and the replica's pool plans them.
  const pagePoolMax = config.DB_PAGE_POOL_MAX ?? DEFAULT_PAGE_POOL_MAX;
  const pagePg = config.DB_PREPARE && !replica && pagePoolMax > 0 ? client(pagePoolMax, 'force_generic_plan') : undefined;
  const pageDb = pagePg ? (drizzlePostgres({ client: pagePg, schema, logger: queryLogger }) as unknown as Db) : analyticsDb;
  const clients = [pg, authPg, ...(pagePg ? [pagePg] : []), ...(listener === pg ? [] : [listener]), ...(replica ? [replica] : [])];
  return {
    kind: 'postgres',
    queries,
    db,
    authDb,
    analyticsDb,
    pageDb,
    pg,
    url,
    sessionUrl: config.DATABASE_DIRECT_URL ?? url,
    listener,
    ...(replica ? { replica } : {}),
    // Ready when both answer: without the lookup's connection every authenticated request fails.
    // The replica is not asked: an instance without it still serves everything but analytics.
    ping: async () => {
      await Promise.all([pg`select 1`, authPg`select 1`]);
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.end({ timeout: 5 })));
    },
  };
}

async function openPglite(dataDir: string, logger: Logger, options: OpenOptions): Promise<Database> {
  const inMemory = dataDir === 'memory';
  const dir = inMemory ? undefined : path.resolve(dataDir);
  let release: (() => Promise<void>) | undefined;
  if (dir) {
    mkdirSync(dir, { recursive: true });
    try {
      // One process owns an embedded data directory; a crashed owner's lock goes stale in 10 s.
      release = await lockfile.lock(dir, { lockfilePath: `${dir}.lock`, stale: 10_000, update: 2_000 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dir);
      throw error;
    }
  }
  let client: PGlite;
  let loaded = false;
  try {
    const loadDataDir = !dir || readdirSync(dir).length === 0 ? options.loadDataDir?.() : undefined;
    try {
      client = await PGlite.create({ dataDir: dir, extensions: pgliteExtensions, loadDataDir });
      loaded = loadDataDir !== undefined;
    } catch (error) {
      if (!loadDataDir) throw error;
      options.onLoadFailed?.(error);
      // The directory was empty, and it is still ours (locked): what is in it came from the tarball.
      if (dir) for (const name of readdirSync(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });
      client = await PGlite.create({ dataDir: dir, extensions: pgliteExtensions });
    }
  } catch (error) {
    await release?.();
    throw error;
  }
  logger.debug({ dataDir, fromTarball: loaded }, 'embedded PGlite opened');
  const { queries, logger: queryLogger } = countingLogger();
  const db = drizzleOnPglite(client, queryLogger);
  return {
    kind: 'pglite',
    queries,
    db,
    authDb: db,
    analyticsDb: db,
    pageDb: db,
    pglite: client,
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      await client.close();
      await release?.();
    },
  };
}
