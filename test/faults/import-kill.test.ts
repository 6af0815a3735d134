import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { createFreshDatabase } from '../helpers/server.js';

// Fault injection: `kill -9` in the middle of an import leaves nothing half-written
// (the file is one transaction), and the same import then runs to completion.
const LINES = 40_000;
let dir: string;
let file: string;
let fresh: { url: string; drop(): Promise<void> } | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sb-kill-'));
  file = path.join(dir, 'messages.ndjson');
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    lines.push(
      JSON.stringify({
        type: 'message',
        id: `kill-${i}`,
        source: 'api',
        destination: 'whatsapp',
        provider_from: '15550001111',
        provider_to: `1555${String(i).padStart(7, '0')}`,
        channel: 'whatsapp',
        direction: 'outbound',
        message_type: 'text',
        user_phone: `1555${String(i).padStart(7, '0')}`,
        conversation_key: `conv-${i % 500}`,
        provider_message_id: `wamid.${i}`,
        status: 'delivered',
        sent_at: '2026-03-01T10:00:00Z',
        failed_at: null,
        error_message: null,
        created_at: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString(),
      }),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  if (process.env.DATABASE_URL) fresh = await createFreshDatabase(process.env.DATABASE_URL);
}, 60_000);
afterAll(async () => {
  await fresh?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, DATABASE_URL: fresh?.url ?? '', DATA_DIR: path.join(dir, 'db'), LOG_LEVEL: 'warn', DEMO: '0' });

function cli(args: string[], onStderr?: (text: string, kill: () => void) => void) {
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr?.(stderr, () => child.kill('SIGKILL'));
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Retries while the killed process's embedded-storage lock goes stale (10 s). */
async function cliRetrying(args: string[]) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await cli(args);
    if (res.code === 0 || !/in use by another process/.test(res.stderr) || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe('kill -9 in the middle of an import', () => {
  it('writes nothing; the next import of the same file completes', async () => {
    const created = await cli(['apps', 'create', '--name', 'Kill test']);
    expect(created.code, created.stderr).toBe(0);
    const appId = JSON.parse(created.stdout).appId as string;

    // Killed once it has read a few thousand lines (its progress on stderr says so).
    const killed = await cli(['import', '--app', appId, file], (stderr, kill) => {
      if (/import: (\d{1,3},)?\d{3},?\d* lines read/.test(stderr) && /([5-9],\d{3}|\d{2},\d{3}) lines read/.test(stderr)) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('');

    const count = async () => {
      if (fresh) {
        const sql = postgres(fresh.url, { max: 1, onnotice: () => {} });
        const [row] = await sql`select count(*)::int as n from messages where app_id = ${appId}`;
        await sql.end();
        return row!.n as number;
      }
      // Embedded storage: open it as the next process would (recovery runs on open), once the
      // killed process's lock has gone stale.
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          const database = await openDatabase({ DATA_DIR: path.join(dir, 'db'), DATABASE_URL: undefined, DB_POOL_MAX: 1, DB_PREPARE: false }, createLogger('silent'));
          try {
            const result = await database.pglite!.query<{ n: number }>('select count(*)::int as n from messages where app_id = $1', [appId]);
            return result.rows[0]!.n;
          } finally {
            await database.close();
          }
        } catch (error) {
          if (!(error instanceof DataDirLockedError) || Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    };
    expect(await count()).toBe(0);

    const again = await cliRetrying(['import', '--app', appId, file]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ message: LINES });
    expect(await count()).toBe(LINES);
  }, 180_000);
});
