import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// postgres.js 3.4.9: when a transaction's connection closes under it (a PostgreSQL restart),
// sql.begin() rejects, then rolls back on the same connection, which has no socket any more: the
// ROLLBACK's bytes wait behind a setImmediate that throws "Cannot read properties of null
// (reading 'write')", an uncaught exception that ends a process, and the pool's next query on that
// connection hangs until connect_timeout. sql.reserve() has the same fault: a query on a
// reservation whose connection closed never settles, and release() puts the dead connection back
// in the pool. patches/postgres+3.4.9.patch fails such queries with CONNECTION_CLOSED instead. Run in a child process, against the fake server: an uncaught
// exception must not take the test runner down with it.

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(import.meta.dirname, 'fixtures/transaction-close.mjs');

async function run(build: string, mode: 'plain' | 'queued' | 'reserve') {
  const { stdout } = await execFileAsync(process.execPath, [FIXTURE, path.join(ROOT, 'node_modules/postgres', build), mode], {
    cwd: ROOT,
    timeout: 15_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('postgres.js: a transaction whose connection closed under it (patches/postgres+3.4.9.patch)', () => {
  it.each(['src', 'cjs/src'])('%s: rejects, does not write to the dead connection, and the pool goes on', async (build) => {
    // Unpatched: uncaught TypeError, and `after` fails with CONNECT_TIMEOUT (5 s).
    expect(await run(build, 'plain')).toEqual({ transaction: 'CONNECTION_CLOSED', after: 'ok', startups: 2, uncaught: [] });
  });

  it.each(['src', 'cjs/src'])('%s: the same while a pooled query waits for that connection (reconnected at once)', async (build) => {
    expect(await run(build, 'queued')).toEqual({ transaction: 'CONNECTION_CLOSED', waiting: 'ok', after: 'ok', startups: 2, uncaught: [] });
  });

  it.each(['src', 'cjs/src'])('%s: a query on a reservation whose connection closed fails at once', async (build) => {
    // Unpatched: `later` never settles (the fixture times out).
    expect(await run(build, 'reserve')).toEqual({ transaction: 'CONNECTION_CLOSED', later: 'CONNECTION_CLOSED', after: 'ok', startups: 2, uncaught: [] });
  });
});
