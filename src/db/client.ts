import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import lockfile from 'proper-lockfile';
import type { Config } from '../config.js';
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
  /** postgres.js client when kind is postgres (LISTEN/NOTIFY, advisory locks). */
  pg?: postgres.Sql;
  url?: string;
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

export async function openDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'DB_POOL_MAX' | 'DB_PREPARE'>, logger: Logger): Promise<Database> {
  if (config.DATABASE_URL) return openPostgres(config.DATABASE_URL, config, logger);
  return openPglite(config.DATA_DIR, logger);
}

function openPostgres(url: string, config: Pick<Config, 'DB_POOL_MAX' | 'DB_PREPARE'>, logger: Logger): Database {
  const pg = postgres(url, {
    max: config.DB_POOL_MAX,
    prepare: config.DB_PREPARE,
    onnotice: (notice) => logger.debug({ notice: notice.message }, 'postgres notice'),
    connect_timeout: 10,
    backoff: reconnectBackoff,
    // Prepared statements are planned for their actual values every time (see prepared-statements.ts).
    // Only with them: poolers (DB_PREPARE=0) refuse unknown startup parameters.
    ...(config.DB_PREPARE ? { connection: { plan_cache_mode: 'force_custom_plan' } } : {}),
  });
  if (config.DB_PREPARE) preferPreparedStatements(pg);
  guardTypeFetch(logger);
  const { queries, logger: queryLogger } = countingLogger();
  const db = drizzlePostgres({ client: pg, schema, logger: queryLogger }) as unknown as Db;
  return {
    kind: 'postgres',
    queries,
    db,
    pg,
    url,
    ping: async () => {
      await pg`select 1`;
    },
    close: () => pg.end({ timeout: 5 }),
  };
}

async function openPglite(dataDir: string, logger: Logger): Promise<Database> {
  const inMemory = dataDir === 'memory';
  let release: (() => Promise<void>) | undefined;
  if (!inMemory) {
    const dir = path.resolve(dataDir);
    mkdirSync(dir, { recursive: true });
    try {
      // One process owns an embedded data directory; a crashed owner's lock goes stale in 10 s.
      release = await lockfile.lock(dir, { lockfilePath: `${dir}.lock`, stale: 10_000, update: 2_000 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dir);
      throw error;
    }
  }
  const client = await PGlite.create(inMemory ? undefined : path.resolve(dataDir), { extensions: { btree_gist, pg_trgm } });
  logger.debug({ dataDir }, 'embedded PGlite opened');
  const { queries, logger: queryLogger } = countingLogger();
  const db = drizzleOnPglite(client, queryLogger);
  return {
    kind: 'pglite',
    queries,
    db,
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
