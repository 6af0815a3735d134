// Starts its servers itself, not with useServer(): one test times the server's close, each needs its own config.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** One raw HTTP/1.1 keep-alive connection: what a load balancer or pooled client holds open. */
async function openConnection(url: string): Promise<{ socket: Socket; get(path: string): Promise<string>; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const opened = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  let buffer = '';
  socket.on('data', (chunk) => (buffer += chunk.toString()));
  return {
    socket,
    closed,
    get: async (path) => {
      buffer = '';
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
      const deadline = Date.now() + 5000;
      while (!/\r\n\r\n[\s\S]*\}/.test(buffer) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return buffer;
    },
  };
}

describe('keep-alive connections', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('stay open 65 s by default (longer than load balancers keep theirs), and do not hold up shutdown', async () => {
    server = await startTestServer();
    const connection = await openConnection(server.url);
    const head = await connection.get('/healthz');
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i);
    // Node's own default would have closed it after 5 s; it is still usable after a pause.
    await new Promise((r) => setTimeout(r, 300));
    expect(connection.socket.destroyed).toBe(false);
    expect(await connection.get('/healthz')).toMatch(/^HTTP\/1\.1 200/);

    // An idle keep-alive connection is closed at once on shutdown, not after 65 s or the grace period.
    const started = Date.now();
    await server.close();
    server = undefined;
    expect(Date.now() - started).toBeLessThan(1500);
    await connection.closed;
  });

  it('close after KEEP_ALIVE_TIMEOUT_MS when idle', async () => {
    server = await startTestServer({ KEEP_ALIVE_TIMEOUT_MS: '1000' });
    const connection = await openConnection(server.url);
    const head = await connection.get('/healthz');
    expect(head).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
    await new Promise((r) => setTimeout(r, 400));
    expect(connection.socket.destroyed).toBe(false);
    // Closed by the server about a second after the response (well before the default 65 s).
    const openFor = await connection.closed;
    expect(openFor).toBeGreaterThanOrEqual(900);
    expect(openFor).toBeLessThan(10_000);
  });

  it('KEEP_ALIVE_TIMEOUT_MS out of range is refused at start-up', () => {
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: '500' })).toThrow(ConfigError);
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT_MS: 'soon' })).toThrow(/KEEP_ALIVE_TIMEOUT_MS/);
    expect(loadConfig({}).KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
  });
});
