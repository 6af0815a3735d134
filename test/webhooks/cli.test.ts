import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { listSubscriptions } from '../../src/webhooks/service.js';
import { runCli, type CliResult } from '../helpers/cli.js';

// The CLI contract (docs/cli.md): `npm run cli -- webhooks create --app ID --url URL --events e1,e2`
// prints {"id", "secret"}; errors go to stderr with exit code 1.
/** Each test spawns the CLI, which opens an embedded database: slow on a busy machine. */
const SLOW = 180_000;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'sb-cli-webhooks-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(dataDir, args, { env: { WEBHOOK_ALLOW_PRIVATE: '0', ...env } });
}

describe('npm run cli -- webhooks create', () => {
  let appId: string;

  it('prints {"id", "secret"} as one JSON line and stores an active subscription', async () => {
    appId = JSON.parse((await cli(['apps', 'create', '--name', 'Hooks'])).stdout).appId;
    const res = await cli(['webhooks', 'create', '--app', appId, '--url', 'http://127.0.0.1:9/hooks', '--events', 'scheduled.cancelled,scheduled.reminder'], {
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });

    const database = await openDatabase({ DATA_DIR: path.join(dataDir, 'db'), DB_POOL_MAX: 1, DB_PREPARE: true }, createLogger('silent'));
    try {
      expect(await listSubscriptions(database.db, appId)).toMatchObject([
        { id: created.id, url: 'http://127.0.0.1:9/hooks', eventTypes: ['scheduled.cancelled', 'scheduled.reminder'], status: 'active', secret: created.secret },
      ]);
    } finally {
      await database.close();
    }
  }, SLOW);

  it.each([
    [['--url', 'http://127.0.0.1:9/hooks', '--events', 'scheduled.cancelled'], /url: resolves to 127\.0\.0\.1/],
    [['--url', 'https://93.184.215.14/hooks', '--events', 'scheduled.exploded'], /eventTypes\.0:/],
    [['--url', 'https://93.184.215.14/hooks'], /--events is required/],
    [['--events', 'scheduled.cancelled'], /--url is required/],
  ])('%j fails with exit 1 and the reason on stderr', async (args, message) => {
    const res = await cli(['webhooks', 'create', '--app', appId, ...args]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  }, SLOW);

  it('names an unknown app', async () => {
    const res = await cli(['webhooks', 'create', '--app', '00000000-0000-4000-8000-000000000000', '--url', 'https://93.184.215.14/h', '--events', 'scheduled.cancelled']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Unknown app 00000000-0000-4000-8000-000000000000/);
  }, SLOW);
});

describe('npm run cli -- webhooks rotate-secret / ping', () => {
  it('takes patterns in --events, rotates the secret with an overlap and queues a ping', async () => {
    const appId = JSON.parse((await cli(['apps', 'create', '--name', 'Rotate'])).stdout).appId;
    const created = JSON.parse((await cli(['webhooks', 'create', '--app', appId, '--url', 'http://127.0.0.1:9/hooks', '--events', 'message.*,scheduled.cancelled'], { WEBHOOK_ALLOW_PRIVATE: '1' })).stdout);
    const rotated = await cli(['webhooks', 'rotate-secret', '--app', appId, '--id', created.id, '--overlap', '3600']);
    expect(rotated.stderr).toBe('');
    const body = JSON.parse(rotated.stdout);
    expect(body).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: expect.any(String) });
    expect(body.secret).not.toBe(created.secret);
    expect(Date.parse(body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3000 * 1000);
    const ping = await cli(['webhooks', 'ping', '--app', appId, '--id', created.id]);
    expect(JSON.parse(ping.stdout)).toEqual({ delivery_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const database = await openDatabase({ DATA_DIR: path.join(dataDir, 'db'), DB_POOL_MAX: 1, DB_PREPARE: true }, createLogger('silent'));
    try {
      expect(await listSubscriptions(database.db, appId)).toMatchObject([{ id: created.id, eventTypes: ['message.*', 'scheduled.cancelled'], secret: body.secret, previousSecret: created.secret }]);
    } finally {
      await database.close();
    }
    const bad = await cli(['webhooks', 'rotate-secret', '--app', appId, '--id', created.id, '--overlap', 'soon']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--overlap expects whole seconds/);
  }, SLOW * 2);
});
