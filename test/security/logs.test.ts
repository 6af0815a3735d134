import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Security review: client secrets, access tokens and Authorization headers never appear in the
// logs, even at debug level. The demo banner prints the demo secret once, so a new user can sign
// in; nothing else may.
describe('logs', () => {
  it('carry no secret, token or Authorization header at debug level', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory', PORT: '0', VIDEO_PORT: '0', HOST: '127.0.0.1', DEMO: '1', LOG_LEVEL: 'debug' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 150_000;
    // The banner and the listening line are separate writes: wait for both before reading them.
    const listening = /"port":(\d+)[^\n]*"switchboard listening"/;
    const ready = () => /client secret: (\S+)/.test(output) && listening.test(output);
    while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const port = Number(listening.exec(output)?.[1]);
    const clientId = /client id: +(\S+)/.exec(output)![1]!;
    const secret = /client secret: (\S+)/.exec(output)![1]!;
    const base = `http://127.0.0.1:${port}`;

    const tokenRes = await fetch(`${base}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });
    const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
    const basic = Buffer.from(`${clientId}:${secret}`).toString('base64');
    await fetch(`${base}/api/v1/oauth/token`, { method: 'POST', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    await fetch(`${base}/api/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong-secret-0123456789`,
    });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${base}/graphql`, { method: 'POST', headers: auth, body: JSON.stringify({ query: '{ viewer { clientId } }' }) });
    await fetch(`${base}/graphql`, { method: 'POST', headers: auth, body: JSON.stringify({ query: '{ nope }' }) });
    await fetch(`${base}/api/v1/analytics/00000000-0000-4000-8000-000000000000/messages`, { headers: auth });
    await fetch(`${base}/api/v1/oauth/revoke`, { method: 'POST', headers: auth, body: JSON.stringify({ token }) });
    await fetch(`${base}/api/v1/analytics/00000000-0000-4000-8000-000000000000/messages`, { headers: auth });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    // The banner's one mention of the demo secret, and nothing else.
    expect(output.split(secret).length - 1).toBe(1 + 1); // "client secret:" line and the curl line of the banner
    expect(output).not.toContain(token);
    expect(output).not.toContain(token.split('.')[2]!);
    expect(output).not.toContain('wrong-secret-0123456789');
    expect(output).not.toContain(basic);
    expect(output.toLowerCase()).not.toMatch(/"authorization":"(bearer|basic) /);
    // It did log at debug level (the test would prove nothing against silent logs).
    expect(output).toMatch(/"level":20/);
  }, 200_000);
});
