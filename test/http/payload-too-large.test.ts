import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LINGER_MS } from '../../src/web/lingering-close.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });

interface Upload {
  /** Everything the server sent, as text. */
  received: () => string;
  /** The first write error (a reset), with the ms after the first response byte it came. */
  writeError: () => { code: string; afterResponseMs: number } | undefined;
  socket: Socket;
  closed: Promise<void>;
}

/** A client that announces a big body and keeps uploading, slowly, whatever the server says. */
function upload(path: string, headers: Record<string, string>, uploadMs: number): Upload {
  const { port } = new URL(server.url);
  const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
  let text = '';
  let firstByteAt: number | undefined;
  let error: { code: string; afterResponseMs: number } | undefined;
  socket.on('data', (chunk: Buffer) => {
    firstByteAt ??= Date.now();
    text += chunk.toString('latin1');
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    error ??= { code: e.code ?? e.message, afterResponseMs: firstByteAt === undefined ? -1 : Date.now() - firstByteAt };
  });
  const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
  socket.write(head);
  const data = Buffer.alloc(16 * 1024, 'x');
  const chunk = headers['transfer-encoding'] === 'chunked' ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
  const started = Date.now();
  const timer = setInterval(() => {
    if (socket.destroyed || Date.now() - started > uploadMs) {
      clearInterval(timer);
      if (!socket.destroyed) socket.end();
      return;
    }
    socket.write(chunk);
  }, 5);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { received: () => text, writeError: () => error, socket, closed };
}

const auth = () => ({ authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' });

describe('413 while the client is still uploading', () => {
  it('the 413 arrives and the connection is not reset while the client keeps sending (lingering close)', async () => {
    const client = upload('/api/v1/oauth/revoke', { ...auth(), 'content-length': String(50 * 1024 * 1024) }, LINGER_MS / 2);
    await client.closed;
    const text = client.received();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"payload_too_large"');
    // The server read and dropped what the client sent after the answer instead of resetting.
    expect(client.writeError()).toBeUndefined();
  });

  it('the lingering is bounded: a client that never stops is cut off after LINGER_MS', async () => {
    const started = Date.now();
    const client = upload('/api/v1/oauth/revoke', { ...auth(), 'content-length': String(500 * 1024 * 1024) }, LINGER_MS * 4);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.writeError()?.afterResponseMs).toBeGreaterThanOrEqual(LINGER_MS - 100);
    expect(Date.now() - started).toBeLessThan(LINGER_MS * 3);
  });

  it('a chunked upload over 1 MiB gets its 413 without a reset too', async () => {
    const client = upload('/graphql', { ...auth(), 'transfer-encoding': 'chunked' }, LINGER_MS / 2);
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.writeError()).toBeUndefined();
  });
});

describe('Expect: 100-continue', () => {
  /** Sends the head only and resolves with the first thing the server answers. */
  const firstAnswer = (headers: Record<string, string>) =>
    new Promise<{ text: string; socket: Socket }>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', reject);
      socket.once('data', (chunk: Buffer) => resolve({ text: chunk.toString('latin1'), socket }));
      socket.write([`POST /api/v1/oauth/revoke HTTP/1.1`, 'Host: 127.0.0.1', 'Expect: 100-continue', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n'));
    });

  it('a body announced over 1 MiB is refused with 413 before the client sends it (no 100 Continue)', async () => {
    const { text, socket } = await firstAnswer({ ...auth(), 'content-length': String(50 * 1024 * 1024) });
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
  });

  it('a body within the limit gets its 100 Continue, then its answer', async () => {
    const body = JSON.stringify({ token: 'not-a-token' });
    const { text, socket } = await firstAnswer({ ...auth(), 'content-length': String(Buffer.byteLength(body)) });
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue/);
    const answer = new Promise<string>((resolve) => {
      let all = '';
      socket.on('data', (chunk: Buffer) => {
        all += chunk.toString('latin1');
        if (all.includes('\r\n\r\n')) resolve(all);
      });
    });
    socket.write(body);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  });
});
