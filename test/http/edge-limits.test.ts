import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { useServer } from '../helpers/use-server.js';

// The edge without a proxy: slow headers and slow bodies are cut by the request timeouts, and a
// full listener still answers health checks from its reserve.

interface Raw {
  socket: Socket;
  text: () => string;
  closed: Promise<number>;
}

async function open(url: string, first = ''): Promise<Raw> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const opened = Date.now();
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  if (first) socket.write(first);
  return { socket, text: () => received, closed };
}

const trickle = (socket: Socket, byte: string, everyMs: number) => {
  const timer = setInterval(() => (socket.writable ? socket.write(byte) : clearInterval(timer)), everyMs);
  socket.once('close', () => clearInterval(timer));
  return timer;
};

describe('request timeouts (HEADERS_TIMEOUT_MS=1000, REQUEST_TIMEOUT_MS=2000)', () => {
  const { server } = useServer({ overrides: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' } });

  it('headers trickled a line at a time: 408 in the envelope and closed, about a second after the first byte', async () => {
    const raw = await open(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    trickle(raw.socket, 'X-Slow: y\r\n', 200);
    const after = await raw.closed;
    expect(raw.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(raw.text()).toMatch(/"type":"invalid_request"/);
    expect(after).toBeGreaterThanOrEqual(900);
    expect(after).toBeLessThan(4000);
  });

  it('a body trickled a byte at a time: 408 and closed within the request timeout', async () => {
    const raw = await open(server.url, 'POST /api/v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{');
    trickle(raw.socket, ' ', 200);
    const after = await raw.closed;
    expect(raw.text()).toMatch(/^HTTP\/1\.1 408 /);
    expect(after).toBeGreaterThanOrEqual(1900);
    expect(after).toBeLessThan(5000);
  });

  it('an idle keep-alive connection is not cut by the headers timeout', async () => {
    const raw = await open(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 2500));
    expect(raw.socket.destroyed).toBe(false);
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    expect(raw.text().match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    raw.socket.destroy();
  });

  it('a headers timeout longer than the request timeout is refused at start-up', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '30000' })).toThrow(ConfigError);
    expect(loadConfig({})).toMatchObject({ HEADERS_TIMEOUT_MS: 20_000, REQUEST_TIMEOUT_MS: 30_000, MAX_CONNECTIONS: 2000, HEALTH_RESERVE_CONNECTIONS: 16 });
  });
});

describe('the connection cap (MAX_CONNECTIONS=20, HEALTH_RESERVE_CONNECTIONS=3)', () => {
  const { server } = useServer({ overrides: { MAX_CONNECTIONS: '20', HEALTH_RESERVE_CONNECTIONS: '3' } });
  const held: Raw[] = [];
  // Runs before useServer's close (hooks after a test run in reverse order).
  afterAll(() => {
    for (const raw of held) raw.socket.destroy();
  });

  it('full: /readyz and /healthz still answer from the reserve, the API is a 503, past the reserve a connection is closed unanswered', async () => {
    for (let i = 0; i < 20; i++) held.push(await open(server.url, 'POST /api/v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n'));
    await new Promise((r) => setTimeout(r, 100));

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('connection')).toBe('close');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const api = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(api.status).toBe(503);
    expect(await api.json()).toMatchObject({ error: { type: 'service_unavailable' } });

    for (let i = 0; i < 3; i++) held.push(await open(server.url));
    await new Promise((r) => setTimeout(r, 100));
    const dropped = await open(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await dropped.closed;
    expect(dropped.text()).toBe('');

    // Room again once connections close: the API answers.
    for (const raw of held.splice(0)) raw.socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${server.url}/api/v1/openapi.json`)).status).toBe(200);
  });
});
