import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { openDatabase, type Database } from '../../src/db/client.js';
import { projectRoot } from '../../src/db/migrate.js';
import { createLogger } from '../../src/log.js';
import { createFreshDatabase } from './server.js';

/**
 * A copy of the migrations folder whose journal stops before `tag`: a database migrated with it
 * is the schema an upgrade to `tag` starts from. `remove` deletes the copy.
 */
export function migrationsBefore(tag: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
  cpSync(path.join(projectRoot(), 'migrations'), dir, { recursive: true });
  const journalPath = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at <= 0) throw new Error(`migration ${tag} is not in the journal (or is the first)`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type StorageKind = 'pglite' | 'postgres';

/** The storages a migration test runs on: PGlite always, PostgreSQL when the suite has one. */
export const storageKinds: readonly StorageKind[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * A fresh database of `kind` migrated up to (not including) `tag`; what it opened is pushed onto
 * `cleanups`, for the caller's afterEach to run in reverse.
 */
export async function databaseBefore(tag: string, kind: StorageKind, cleanups: (() => Promise<void> | void)[]): Promise<Database> {
  const logger = createLogger('silent');
  const before = migrationsBefore(tag);
  cleanups.push(before.remove);
  const migrationsFolder = before.dir;
  if (kind === 'pglite') {
    const database = await openDatabase({ DATA_DIR: 'memory', DATABASE_URL: undefined, DB_POOL_MAX: 1, DB_PREPARE: false }, logger);
    cleanups.push(() => database.close());
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    return database;
  }
  const fresh = await createFreshDatabase(process.env.DATABASE_URL!);
  cleanups.push(() => fresh.drop());
  const database = await openDatabase({ DATA_DIR: 'memory', DATABASE_URL: fresh.url, DB_POOL_MAX: 2, DB_PREPARE: false }, logger);
  cleanups.push(() => database.close());
  await migratePostgres(drizzlePostgres({ client: database.pg! }), { migrationsFolder });
  return database;
}
