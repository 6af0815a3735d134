import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';

// SIGTERM: stop accepting, finish in-flight requests, close the database, exit 0.
describe('graceful shutdown of the real process', () => {
  it('finishes a request in flight, refuses new connections, and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory', PORT: '0', VIDEO_PORT: '0', HOST: '127.0.0.1', DEMO: '1', LOG_LEVEL: 'info' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    const deadline = Date.now() + 60_000;
    // The credentials (stdout) and the listening line with its port (the JSON log) come on two
    // streams, in either order: wait for both.
    const started = () => /client secret: (\S+)/.test(output) && /"port":(\d+)/.test(output);
    while (!started() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const port = Number(/"port":(\d+)/.exec(output)?.[1]);
    const clientId = /client id: +(\S+)/.exec(output)?.[1];
    const clientSecret = /client secret: (\S+)/.exec(output)?.[1];
    expect(port).toBeGreaterThan(0);

    // A token request whose body is only half sent when SIGTERM arrives.
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    let refusedWhileInFlight: Promise<boolean> | undefined;
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/api/v1/oauth/token', method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 20));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => {
          // The listener is closed while the first request is still open.
          refusedWhileInFlight = fetch(`http://127.0.0.1:${port}/healthz`).then(
            () => false,
            () => true,
          );
          void refusedWhileInFlight.then(() => req.end(body.slice(20)));
        }, 300);
      }, 200);
    });
    const done = await response;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.text).data.token_type).toBe('Bearer');

    expect(await refusedWhileInFlight).toBe(true);
    expect(await exited).toBe(0);
    expect(output).toMatch(/"msg":"stopped"/);
    // A real process starting embedded PostgreSQL, migrating and seeding the demo: slow on a busy 2-core machine.
  }, 90_000);
});
