import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { runCli, type CliResult } from '../helpers/cli.js';

// The CLI as a user runs it, on its own embedded DATA_DIR.
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'sb-cli-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function cli(args: string[], input?: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(dataDir, args, { env, stdin: input });
}

// Each case spawns the CLI, which compiles with tsx and opens PGlite; the first one also creates
// the DATA_DIR and runs every migration, slow on a loaded machine; a case that timed out would
// leave its process holding the DATA_DIR for the next, hence the long timeout.
describe('npm run cli', { timeout: 120_000 }, () => {
  let appId: string;

  it('apps create prints {"appId"} as one JSON line', async () => {
    const res = await cli(['apps', 'create', '--name', 'Acme']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    appId = JSON.parse(lines[0]!).appId;
    expect(appId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('clients create prints the client id, the secret once, scopes and apps', async () => {
    const res = await cli(['clients', 'create', '--app', appId, '--scopes', 'messages:read,analytics:read', '--rate', 'minute=5,hour=100']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({
      client_id: expect.stringMatching(/^sbc_/),
      client_secret: expect.stringMatching(/^sbs_/),
      scopes: ['messages:read', 'analytics:read'],
      apps: [appId],
    });
  });

  it.each([
    [['clients', 'create', '--app', '00000000-0000-4000-8000-000000000000', '--scopes', 'messages:read'], /Unknown app/],
    [['clients', 'create', '--scopes', 'messages:read'], /apps/],
    [['clients', 'create', '--app', 'x', '--scopes', 'nope:read'], /scopes/],
    [['clients', 'create', '--app', 'x', '--scopes', 'messages:read', '--rate', 'week=5'], /--rate/],
    [['apps', 'create'], /--name is required/],
    [['apps', 'create', '--name', 'X', 'extra'], /unexpected argument "extra"/],
    [['clients', 'create', '--app', 'x', '--scopes', 'messages:read', '--rate', 'minute=5,minute=6'], /--rate gives minute twice/],
    [['frobnicate'], /usage/],
  ])('%j fails with exit 1 and a message on stderr', async (args, message) => {
    const res = await cli(args);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
  });

  it('booking-policy set replaces the policy through the mutation\'s rules, show prints it; bad values name the field', async () => {
    const set = await cli(['booking-policy', 'set', '--app', appId, '--minimum-notice-minutes', '120', '--alignment-minutes', '15', '--assignment', 'round_robin']);
    expect(set.code).toBe(0);
    const policy = { minimumNoticeMinutes: 120, horizonDays: null, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, maxCallsPerDay: null, maxCallsPerWeek: null, alignmentMinutes: 15, assignment: 'round_robin' };
    expect(JSON.parse(set.stdout)).toEqual(policy);
    const show = await cli(['booking-policy', 'show', '--app', appId]);
    expect(JSON.parse(show.stdout)).toEqual(policy);
    const bad = await cli(['booking-policy', 'set', '--app', appId, '--alignment-minutes', '7']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/input\.alignmentMinutes: must divide 1440/);
    const noAgent = await cli(['booking-policy', 'set', '--app', appId, '--agent', '00000000-0000-4000-8000-000000000009', '--weight', '5']);
    expect(noAgent.code).toBe(1);
    expect(noAgent.stderr).toMatch(/Agent/);
  });

  it('import names the bad line and writes nothing', async () => {
    const file = path.join(dataDir, 'bad.ndjson');
    writeFileSync(file, '\n{"type":"mystery","id":"1"}\n');
    const res = await cli(['import', '--app', appId, file]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/line 2: unknown record type "mystery"/);
  });

  it.each([
    [['import', '--app', '00000000-0000-4000-8000-000000000000', 'FILE'], /no app 00000000-0000-4000-8000-000000000000/],
    [['import', '--app', 'nope', 'FILE'], /--app must be an app id \(UUID\)/],
    [['seed', '--app', '00000000-0000-4000-8000-000000000000', '--messages', '10', '--seed', 'abc'], /--seed must be a whole number/],
  ])('%j says what is wrong with the option, exit 1', async (args, message) => {
    const file = path.join(dataDir, 'ok.ndjson');
    writeFileSync(file, '{"type":"campaign","id":"00000000-0000-4000-8000-000000000001","name":"C","status":"active","total_contacts":1,"sent_count":1,"created_at":"2026-03-01T00:00:00Z","tags":[]}\n');
    const res = await cli(args.map((a) => (a === 'FILE' ? file : a)));
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/Failed query|params:/);
  });

  it('keys rotate is refused while JWT_PRIVATE_JWK names the signing key; keys retire still refuses the signer', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const env = { JWT_PRIVATE_JWK: JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'cli-configured' }), DATA_DIR: path.join(dataDir, 'db-configured-key') };
    const rotate = await cli(['keys', 'rotate'], undefined, env);
    expect(rotate.code).toBe(1);
    expect(rotate.stderr).toMatch(/with JWT_PRIVATE_JWK set, change that setting and restart instead/);
    // retire takes a key JWT_PRIVATE_JWK replaced (test/auth/configured-key.test.ts), never the one that signs.
    const retire = await cli(['keys', 'retire', '--kid', 'cli-configured'], undefined, env);
    expect(retire.code).toBe(1);
    expect(retire.stderr).toMatch(/is the newest key, which signs/);
  });

  it('refuses clearly while another process owns the embedded DATA_DIR', async () => {
    const holder = await openDatabase({ DATA_DIR: path.join(dataDir, 'db'), DB_POOL_MAX: 1, DB_PREPARE: true }, createLogger('silent'));
    try {
      const res = await cli(['apps', 'create', '--name', 'Blocked']);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/in use by another process/);
    } finally {
      await holder.close();
    }
    expect((await cli(['apps', 'create', '--name', 'Free again'])).code).toBe(0);
  });
});
