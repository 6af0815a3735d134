import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
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

const migrationsFolder = () => path.join(projectRoot(), 'migrations');

/** Applies pending migrations; on PostgreSQL several instances may start at once (DESIGN section 1). */
export async function runMigrations(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: migrationsFolder() });
    return;
  }
  const pg = database.pg!;
  // A reserved connection holds the session-level lock while another drizzle instance on the
  // same connection applies the migrations; the others wait, then find nothing left to do.
  const conn = await pg.reserve();
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migratePostgres(drizzlePostgres({ client: conn }), { migrationsFolder: migrationsFolder() });
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    conn.release();
  }
}
