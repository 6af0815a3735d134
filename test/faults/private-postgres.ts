import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

// A throwaway PostgreSQL cluster of its own (initdb on a free port under /tmp) that a fault test
// may stop and start without disturbing the shared server on 5432 or other test runs.

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const dir = version ? path.join(root, version, 'bin') : undefined;
  return dir && existsSync(path.join(dir, 'initdb')) ? dir : undefined;
}

/** PostgreSQL refuses to run as root: run its tools as the postgres user when we are root. */
function run(bin: string, args: string[]) {
  const asRoot = process.getuid?.() === 0;
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${path.basename(bin)} failed: ${result.stderr || result.stdout}`);
}

export interface PrivatePostgres {
  url: string;
  stop(): void;
  start(): void;
  destroy(): void;
}

export function privatePostgresAvailable(): boolean {
  return binDir() !== undefined && (process.getuid?.() !== 0 || spawnSync('id', ['postgres']).status === 0);
}

export function startPrivatePostgres(port: number): PrivatePostgres {
  const bin = binDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-faults-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const pgCtl = (...args: string[]) => run(path.join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '30', ...args]);
  const start = () => pgCtl('-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', path.join(dir, 'log'), 'start');
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pgCtl('-m', 'fast', 'stop'),
    start,
    destroy: () => {
      try {
        pgCtl('-m', 'immediate', 'stop');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A test server on a private cluster of its own, started before the file's tests and removed
 * after them (its restart may fail the server's close, which is ignored). `available` is false
 * where the cluster cannot be made: skip the tests then.
 */
export function usePrivatePostgresServer(portBase: number, overrides: Record<string, string> = {}) {
  const state: { available: boolean; pg: PrivatePostgres; server: TestServer } = { available: privatePostgresAvailable() } as never;
  beforeAll(async () => {
    if (!state.available) return;
    state.pg = startPrivatePostgres(portBase + (process.pid % 1000));
    state.server = await startTestServer({ DATABASE_URL: state.pg.url, ...overrides });
  }, 60_000);
  afterAll(async () => {
    await state.server?.close().catch(() => {});
    state.pg?.destroy();
  });
  return state;
}
