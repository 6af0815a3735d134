import type { Logger } from '../log.js';
import { openDatabase, type Database, type StorageConfig } from './client.js';
import { runMigrations } from './migrate.js';
import { defaultSnapshotDir, discardSnapshot, readSnapshot, snapshotKey, writeSnapshot } from './pglite-snapshot.js';

/**
 * Opens storage with every migration applied. A new embedded database (in memory, or a data
 * directory with nothing in it yet) starts from the migrated snapshot when there is one
 * (pglite-snapshot.ts); an in-memory one that found none, or a damaged one, leaves one for the
 * next start.
 */
export async function openMigratedDatabase(config: StorageConfig, logger: Logger, snapshots = defaultSnapshotDir()): Promise<Database> {
  // Asked for only by a new embedded database: PostgreSQL and an existing data directory skip it.
  let key: string | undefined;
  let snapshot: Blob | undefined;
  const unusable = (error: unknown) => {
    snapshot = undefined;
    logger.warn({ err: error }, 'embedded database snapshot could not be loaded; starting from an empty database');
    if (key) discardSnapshot(snapshots, key);
  };
  const database = await openDatabase(config, logger, {
    loadDataDir: () => {
      key = keyOrUndefined(logger);
      try {
        return (snapshot = key ? readSnapshot(snapshots, key) : undefined);
      } catch (error) {
        unusable(error);
        return undefined;
      }
    },
    onLoadFailed: unusable,
  });
  try {
    await runMigrations(database);
    if (config.DATA_DIR === 'memory' && key && !snapshot && database.pglite) {
      await writeSnapshot(database.pglite, snapshots, key).catch((error: unknown) => logger.debug({ err: error }, 'embedded database snapshot not saved'));
    }
    return database;
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

function keyOrUndefined(logger: Logger): string | undefined {
  try {
    return snapshotKey();
  } catch (error) {
    logger.debug({ err: error }, 'embedded database snapshot unavailable');
    return undefined;
  }
}
