import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/apps/service.js';
import { apps } from '../../src/apps/tables.js';
import type { Database } from '../../src/db/client.js';
import { migrationsFolder } from '../../src/db/migrate.js';
import { openMigratedDatabase } from '../../src/db/open-migrated.js';
import { defaultSnapshotDir, snapshotKey, writeSnapshot } from '../../src/db/pglite-snapshot.js';
import { rowsOf } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import { migrationsBefore } from '../helpers/migrations.js';

/*
 * A new embedded database starts from a snapshot of a migrated one (src/db/pglite-snapshot.ts).
 * Each case keeps its snapshots in a folder of its own, not the project's cache, which the test
 * files running beside it use.
 */

const embedded = { DATABASE_URL: undefined, DB_POOL_MAX: 1, DB_PREPARE: false };
const journalEntries = (JSON.parse(readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries
  .length;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

async function open(dataDir: string, snapshots: string, logger = createLogger('silent')): Promise<Database> {
  const database = await openMigratedDatabase({ ...embedded, DATA_DIR: dataDir }, logger, snapshots);
  cleanups.push(() => database.close());
  return database;
}

async function appliedMigrations(database: Database): Promise<number> {
  const [row] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`));
  return row!.n;
}

async function appNames(database: Database): Promise<string[]> {
  return (await database.db.select({ name: apps.name }).from(apps).orderBy(apps.name)).map((row) => row.name);
}

/** Replaces the snapshot in `snapshots` with one holding an app called `marker`. */
async function snapshotWithMarker(snapshots: string, marker: string): Promise<void> {
  // Starts from the project's snapshot, as a test server does (and makes it if there is none).
  const source = await open('memory', defaultSnapshotDir());
  await createApp(source.db, { name: marker });
  await writeSnapshot(source.pglite!, snapshots, snapshotKey());
}

const snapshotFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.tar')) : []);

describe('the snapshot key', () => {
  it('is the same for the same migrations and changes with any migration file', () => {
    expect(snapshotKey()).toBe(snapshotKey());
    expect(snapshotKey()).toMatch(/^[0-9a-f]{16}$/);

    const before = migrationsBefore('0013_webhook_deliveries_paused');
    cleanups.push(before.remove);
    expect(snapshotKey(before.dir)).not.toBe(snapshotKey());

    const edited = temporaryDir('migrations-edited-');
    cpSync(migrationsFolder(), edited, { recursive: true });
    expect(snapshotKey(edited)).toBe(snapshotKey());
    appendFileSync(path.join(edited, '0005_scheduling.sql'), '\n-- an edit\n');
    expect(snapshotKey(edited)).not.toBe(snapshotKey());
  });
});

describe('an in-memory database', () => {
  it('leaves a snapshot on its first start, with every migration applied, in place of older ones', async () => {
    const snapshots = temporaryDir('snapshots-');
    writeFileSync(path.join(snapshots, 'pglite-0000000000000000.tar'), 'a snapshot of other migrations');
    writeFileSync(path.join(snapshots, 'unrelated.txt'), 'kept');
    // Temporary files of writers: one killed mid-write an hour ago, one still writing, and one
    // written just now by a pid not seen from here (another pid namespace).
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const killedWriter = `pglite-${snapshotKey()}.tar.${gone}.0a1b2c3d.tmp`;
    const liveWriter = `pglite-${snapshotKey()}.tar.${process.pid}.4e5f6a7b.tmp`;
    const unseenWriter = `pglite-${snapshotKey()}.tar.${gone}.8c9d0e1f.tmp`;
    for (const name of [killedWriter, liveWriter, unseenWriter]) writeFileSync(path.join(snapshots, name), 'half a tarball');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(snapshots, killedWriter), anHourAgo, anHourAgo);
    const first = await open('memory', snapshots);
    expect(await appliedMigrations(first)).toBe(journalEntries);
    // Both sides sorted: the two writers' pids order as strings, which need not follow their ages.
    expect(readdirSync(snapshots).sort()).toEqual([`pglite-${snapshotKey()}.tar`, liveWriter, unseenWriter, 'unrelated.txt'].sort());

    const second = await open('memory', snapshots);
    expect(await appliedMigrations(second)).toBe(journalEntries);
  });

  it('starts from the snapshot, and each database from it is its own', async () => {
    const snapshots = temporaryDir('snapshots-');
    await snapshotWithMarker(snapshots, 'from the snapshot');

    const { logger, lines } = capturingLogger();
    const one = await open('memory', snapshots, logger);
    expect(await appNames(one)).toEqual(['from the snapshot']);
    expect(lines.some((line) => line.msg === 'embedded PGlite opened' && (line as unknown as { fromTarball: boolean }).fromTarball)).toBe(true);
    await createApp(one.db, { name: 'only in one' });
    await one.db.update(apps).set({ name: 'renamed in one' }).where(eq(apps.name, 'from the snapshot'));

    const two = await open('memory', snapshots);
    expect(await appNames(two)).toEqual(['from the snapshot']);
    expect(await appNames(one)).toEqual(['only in one', 'renamed in one']);
  });

  it('starts empty and migrates when the snapshot is damaged, and replaces it', async () => {
    const snapshots = temporaryDir('snapshots-');
    const file = path.join(snapshots, `pglite-${snapshotKey()}.tar`);
    writeFileSync(file, Buffer.alloc(4096, 7));

    const { logger, lines } = capturingLogger();
    const database = await open('memory', snapshots, logger);
    expect(await appliedMigrations(database)).toBe(journalEntries);
    expect(await appNames(database)).toEqual([]);
    expect(lines.some((line) => line.level === 40 && line.msg.startsWith('embedded database snapshot could not be loaded'))).toBe(true);
    expect(readFileSync(file).toString('latin1', 257, 262)).toBe('ustar');
    expect(await appNames(await open('memory', snapshots))).toEqual([]);
  });

  it('starts empty when the snapshot is a tar archive of something else, and replaces it', async () => {
    const snapshots = temporaryDir('snapshots-');
    const content = temporaryDir('not-a-database-');
    writeFileSync(path.join(content, 'notes.txt'), 'not a data directory');
    execFileSync('tar', ['--format=ustar', '-cf', path.join(snapshots, `pglite-${snapshotKey()}.tar`), '-C', content, 'notes.txt']);

    const { logger, lines } = capturingLogger();
    const database = await open('memory', snapshots, logger);
    expect(await appliedMigrations(database)).toBe(journalEntries);
    expect(await appNames(database)).toEqual([]);
    expect(lines.some((line) => line.level === 40 && line.msg.startsWith('embedded database snapshot could not be loaded'))).toBe(true);
    const replaced = await open('memory', snapshots);
    expect(await appliedMigrations(replaced)).toBe(journalEntries);
    expect(statSync(path.join(snapshots, `pglite-${snapshotKey()}.tar`)).size).toBeGreaterThan(1_000_000);
  });
});

describe('a data directory', () => {
  it('starts from the snapshot when it is new, and opens as it is afterwards', async () => {
    const snapshots = temporaryDir('snapshots-');
    await snapshotWithMarker(snapshots, 'first snapshot');
    const dataDir = path.join(temporaryDir('data-'), 'db');

    const created = await openMigratedDatabase({ ...embedded, DATA_DIR: dataDir }, createLogger('silent'), snapshots);
    expect(await appNames(created)).toEqual(['first snapshot']);
    await createApp(created.db, { name: 'stored' });
    await created.close();

    await snapshotWithMarker(snapshots, 'second snapshot');
    const reopened = await open(dataDir, snapshots);
    expect(await appNames(reopened)).toEqual(['first snapshot', 'stored']);
    expect(await appliedMigrations(reopened)).toBe(journalEntries);
  });

  it('is initialised as before when there is no snapshot, and leaves none', async () => {
    const snapshots = path.join(temporaryDir('snapshots-'), 'none');
    const dataDir = temporaryDir('data-');
    const database = await open(dataDir, snapshots);
    expect(await appliedMigrations(database)).toBe(journalEntries);
    expect(await appNames(database)).toEqual([]);
    expect(snapshotFiles(snapshots)).toEqual([]);
  });

  it('that holds files but no database is not loaded into', async () => {
    const snapshots = temporaryDir('snapshots-');
    await snapshotWithMarker(snapshots, 'from the snapshot');
    const dataDir = temporaryDir('data-');
    mkdirSync(path.join(dataDir, 'base'));
    // PGlite would refuse the tarball here or run initdb; either way nothing of the snapshot's.
    const attempt = openMigratedDatabase({ ...embedded, DATA_DIR: dataDir }, createLogger('silent'), snapshots).then(
      (database) => {
        cleanups.push(() => database.close());
        return appNames(database);
      },
      () => 'refused',
    );
    expect(await attempt).not.toContain('from the snapshot');
  });
});
