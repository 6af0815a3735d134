import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// A bad setting refuses start-up with one clear line on stderr and exit 1 (server and CLI),
// not an uncaught error's stack trace or a fatal log line carrying one.

/** Runs the server or the CLI as a user would; one that does not exit within 20 s is killed (code -1). */
function run(entry: 'src/main.ts' | 'src/cli/main.ts', env: Record<string, string>, args: string[] = []) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: 'memory', PORT: '0', VIDEO_PORT: '0', HOST: '127.0.0.1', DEMO: '0', LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const jwk = (options: Parameters<typeof generateKeyPairSync>[1], type: 'ec' | 'rsa' = 'ec') =>
  JSON.stringify(generateKeyPairSync(type as 'ec', options as { namedCurve: string }).privateKey.export({ format: 'jwk' }));
const p256 = JSON.parse(jwk({ namedCurve: 'P-256' })) as Record<string, string>;

const bad: [string, Record<string, string>, RegExp][] = [
  ['PORT=abc', { PORT: 'abc' }, /PORT/],
  ['DEMO=false', { DEMO: 'false' }, /DEMO/],
  ['LOG_LEVEL=loud', { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ['DB_PREPARE=yes', { DB_PREPARE: 'yes' }, /DB_PREPARE/],
  ['KEYS_RELOAD_MS over 2^31-1', { KEYS_RELOAD_MS: '3000000000' }, /KEYS_RELOAD_MS/],
  ['WEBHOOK_POLL_MS over 2^31-1', { WEBHOOK_POLL_MS: '3000000000' }, /WEBHOOK_POLL_MS/],
  ['SHUTDOWN_GRACE_MS over 2^31-1', { SHUTDOWN_GRACE_MS: '3000000000' }, /SHUTDOWN_GRACE_MS/],
  ['a symmetric JWT_PRIVATE_JWK', { JWT_PRIVATE_JWK: '{"kty":"oct","k":"c2VjcmV0LXNpZ25pbmcta2V5"}' }, /JWT_PRIVATE_JWK/],
  ['an RSA JWT_PRIVATE_JWK', { JWT_PRIVATE_JWK: jwk({ modulusLength: 2048 }, 'rsa') }, /JWT_PRIVATE_JWK.*EC P-256/],
  ['a TRUSTED_PROXIES entry that is a host name', { TRUSTED_PROXIES: '10.0.0.1,my-secret-proxy-name' }, /TRUSTED_PROXIES: entry 2 is not an IP address/],
  // More JWT_PRIVATE_JWK cases, without spawning: test/auth/configured-key.test.ts.
];

function expectOneLineRefusal(res: { code: number; stdout: string; stderr: string }, message: RegExp) {
  expect(res.code).toBe(1);
  expect(res.stdout).toBe('');
  const lines = res.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: Invalid configuration: /);
  expect(lines[0]).toMatch(message);
  expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('start-up with a bad setting', () => {
  // Every case through loadConfig; the way a refusal reaches the user (one line, exit 1) through
  // the real processes for a few, since each spawn loads the sources through tsx, which is slow.
  it.each(bad)('loadConfig refuses %s with a one-line ConfigError naming the variable', (_name, env, message) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: 'memory', ...env });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^Invalid configuration: /);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
    // Named, never repeated: a value may be a secret.
    for (const value of Object.values(env)) if (value.length >= 6) expect((error as Error).message).not.toContain(value.split(',').pop());
  });

  it.each(bad.filter(([name]) => name === 'PORT=abc' || name === 'a symmetric JWT_PRIVATE_JWK'))(
    'the server refuses %s with one line on stderr and exit 1',
    async (_name, env, message) => {
      expectOneLineRefusal(await run('src/main.ts', env), message);
    },
    40_000,
  );

  it.each(bad.slice(0, 1))('the CLI refuses %s with one "error: ..." line and exit 1', async (_name, env, message) => {
    expectOneLineRefusal(await run('src/cli/main.ts', env, ['apps', 'create', '--name', 'x']), message);
  }, 40_000);

  it('never echoes the key material of a refused JWT_PRIVATE_JWK', async () => {
    const res = await run('src/main.ts', { JWT_PRIVATE_JWK: JSON.stringify({ ...p256, x: p256.y }) });
    expectOneLineRefusal(res, /JWT_PRIVATE_JWK/);
    expect(res.stderr).not.toContain(p256.d);
  }, 40_000);
});

describe('millisecond settings have a maximum below the timer limit (2^31-1 ms)', () => {
  const env = (extra: Record<string, string>) => ({ DATA_DIR: 'memory', ...extra });
  it.each(['KEYS_RELOAD_MS', 'SHUTDOWN_GRACE_MS', 'WEBHOOK_POLL_MS', 'WEBHOOK_TIMEOUT_MS'])('%s=2147483648 is refused', (name) => {
    expect(() => loadConfig(env({ [name]: '2147483648' }))).toThrow(new RegExp(`^Invalid configuration: ${name}: `));
  });

  it('every *_MS setting of the schema is bounded', () => {
    // A new millisecond setting without a maximum fails here.
    const names = Object.keys(loadConfig(env({}))).filter((n) => n.endsWith('_MS'));
    expect(names.length).toBeGreaterThanOrEqual(4);
    for (const name of names) expect(() => loadConfig(env({ [name]: String(2 ** 31) })), name).toThrow(/Invalid configuration/);
  });

  it('a retry delay over 7 days is refused; the defaults and bounds still load', () => {
    expect(() => loadConfig(env({ WEBHOOK_RETRY_SCHEDULE: '5,604801' }))).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig(env({ WEBHOOK_RETRY_SCHEDULE: '5,1e20' }))).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    const config = loadConfig(env({ KEYS_RELOAD_MS: '86400000', SHUTDOWN_GRACE_MS: '3600000', WEBHOOK_POLL_MS: '3600000', WEBHOOK_RETRY_SCHEDULE: '604800' }));
    expect(config.KEYS_RELOAD_MS).toBe(86_400_000);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([604_800_000]);
  });
});
