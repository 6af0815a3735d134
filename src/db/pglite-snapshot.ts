import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { pgliteExtensions } from './client.js';
import { migrationsFolder, projectRoot } from './migrate.js';

/*
 * A new embedded database starts from a tarball of an empty one with every migration applied,
 * instead of running PGlite's initdb and then each migration, which takes several times longer.
 * In-memory databases (DATA_DIR=memory: tests, throwaway demos) build the tarball on
 * their first start; a new data directory uses it when one is there already. It lives under
 * node_modules/.cache (the project's, so owned by whoever installed it) and is named by what it
 * is made of: PGlite's version, its extensions and the migration files. A new migration or a
 * PGlite upgrade therefore builds a new one; migrations still run after a load, as a safety net.
 */

const FORMAT = 1;
const PREFIX = 'pglite-';
const SUFFIX = '.tar';

/** Where snapshots are kept unless a caller names another folder (tests do). */
export function defaultSnapshotDir(): string {
  return path.join(projectRoot(), 'node_modules', '.cache', 'switchboard');
}

/** What the snapshot is made of, hashed: a change to any of it names another file. */
export function snapshotKey(migrations = migrationsFolder()): string {
  const hash = createHash('sha256');
  hash.update(`format ${FORMAT}\npglite ${pgliteVersion()}\nextensions ${Object.keys(pgliteExtensions).sort().join(',')}\n`);
  const files = [
    ...readdirSync(migrations).filter((name) => name.endsWith('.sql')),
    path.join('meta', '_journal.json'),
  ].sort();
  for (const file of files) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(path.join(migrations, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The installed PGlite's version, from the package.json above its entry point. */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (manifest.name === '@electric-sql/pglite') return manifest.version;
    } catch {
      // no package.json here: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('@electric-sql/pglite: package.json not found');
    dir = parent;
  }
}

function snapshotPath(dir: string, key: string): string {
  return path.join(dir, `${PREFIX}${key}${SUFFIX}`);
}

/**
 * The snapshot for `key`, or undefined when there is none. Throws when the file is not a whole
 * tar archive (the caller discards it): PGlite is never handed a damaged file, as its unpacker
 * reports some damage as an unhandled rejection, which would end the process.
 */
export function readSnapshot(dir: string, key: string): Blob | undefined {
  const file = snapshotPath(dir, key);
  if (!existsSync(file)) return undefined;
  const bytes = readFileSync(file);
  if (!isWholeTar(bytes)) throw new Error(`${file} is not a whole tar archive`);
  return new Blob([bytes]);
}

/** A ustar header first, whole 512-byte blocks, and the two zero blocks that end an archive. */
function isWholeTar(bytes: Buffer): boolean {
  const BLOCK = 512;
  if (bytes.length < 3 * BLOCK || bytes.length % BLOCK !== 0) return false;
  if (bytes.toString('latin1', 257, 262) !== 'ustar') return false;
  for (let at = bytes.length - 2 * BLOCK; at < bytes.length; at += 1) if (bytes[at] !== 0) return false;
  return true;
}

/** Forgets a snapshot that failed to load, so the next start builds it again. */
export function discardSnapshot(dir: string, key: string): void {
  rmSync(snapshotPath(dir, key), { force: true });
}

/**
 * Saves `pglite`'s data directory as the snapshot for `key`. Written under a temporary name and
 * renamed, so a process starting meanwhile (test files start in parallel) reads a whole file or
 * none. Snapshots of other keys are removed: they are large and no longer match. So are
 * temporary files that writers killed mid-write left behind; a live writer's is left alone.
 */
export async function writeSnapshot(pglite: PGlite, dir: string, key: string): Promise<void> {
  const tarball = await pglite.dumpDataDir('none');
  mkdirSync(dir, { recursive: true });
  const target = snapshotPath(dir, key);
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, Buffer.from(await tarball.arrayBuffer()));
  renameSync(temporary, target);
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    const stale = TEMPORARY.test(name) ? isAbandoned(file) : name.startsWith(PREFIX) && name.endsWith(SUFFIX) && name !== path.basename(target);
    if (stale) rmSync(file, { force: true });
  }
}

/** writeSnapshot's temporary files: the snapshot's name, the writer's pid, a random suffix. */
const TEMPORARY = /^pglite-[0-9a-f]+\.tar\.\d+\.[0-9a-f]+\.tmp$/;

/**
 * A write takes seconds, so a temporary file ten minutes old was left by a writer that died.
 * Its age decides, not whether its pid runs: a writer in another pid namespace (a container
 * sharing the folder) would look gone from here.
 */
const ABANDONED_AFTER_MS = 10 * 60_000;

function isAbandoned(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > ABANDONED_AFTER_MS;
  } catch {
    return false; // renamed or removed meanwhile
  }
}
