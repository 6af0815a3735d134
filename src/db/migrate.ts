import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import postgres from 'postgres';
import type { Database } from './client.js';

// Arbitrary constant naming "switchboard migrations" for pg_advisory_lock.
const MIGRATION_LOCK_ID = 724_061_337;

export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const migrationsFolder = () => path.join(projectRoot(), 'migrations');

/** Applies pending migrations; on PostgreSQL several instances may start at once, so they take turns. */
export async function runMigrations(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: migrationsFolder() });
    return;
  }
  // A one-connection client holds the session-level lock while it applies the migrations; other
  // instances starting at the same time wait on the lock, then find nothing left to do.
  // A session of its own: through a transaction-mode pooler the lock would stay behind on
  // whichever server connection took it.
  const conn = postgres(database.sessionUrl ?? database.url!, { max: 1, onnotice: () => {} });
  try {
    // A statement_timeout set for the role (docs/operations.md) must not cut a long migration,
    // nor the wait for another instance's.
    await conn`set statement_timeout = 0`;
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgres(drizzlePostgres({ client: conn }), { migrationsFolder: migrationsFolder() });
  } finally {
    // Ending the session releases the lock even when a migration failed.
    await conn.end({ timeout: 5 });
  }
}
