import { connect, type Socket } from 'node:net';
import { appendEvents } from '../../src/scheduling/timeline.js';
import type { TestServer } from '../helpers/server.js';

/** One SSE message of graphql-sse: its event name and parsed data. */
export interface SseMessage {
  event: string;
  data: { data?: { scheduledCallEvents?: { id: string } }; errors?: { message: string; extensions?: { code?: string } }[] } | null;
}

export interface RawStream {
  socket: Socket;
  /** The status line's code, once the headers arrived. */
  status: Promise<number>;
  messages: () => SseMessage[];
  /** The body received so far (a refusal's JSON, sent with Content-Length). */
  body: () => string;
  /** Bytes received so far. */
  received: () => number;
  closed: Promise<void>;
}

/**
 * A subscription on /graphql/stream over a raw socket, so a test controls reading: `paused`
 * stops reading right after the headers (a reader that never reads; the kernel's buffers fill).
 */
export async function rawStream(server: TestServer, token: string, query: string, variables: object, options: { paused?: boolean } = {}): Promise<RawStream> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = JSON.stringify({ query, variables });
  socket.write(
    `POST /graphql/stream HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const chunks: Buffer[] = [];
  let bytes = 0;
  let resolveStatus: (status: number) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    chunks.push(chunk);
    if (chunks.length === 1) {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'));
      if (match) resolveStatus(Number(match[1]));
      if (options.paused) socket.pause();
    }
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    status,
    received: () => bytes,
    body: () => {
      const raw = Buffer.concat(chunks);
      return raw.subarray(raw.indexOf('\r\n\r\n') + 4).toString('utf8');
    },
    closed,
    messages: () => {
      const text = dechunk(Buffer.concat(chunks));
      const out: SseMessage[] = [];
      for (const match of text.matchAll(/event: (\w+)\n(?:data: (.*)\n)?/g)) out.push({ event: match[1]!, data: match[2] ? (JSON.parse(match[2]) as SseMessage['data']) : null });
      return out;
    },
  };
}

/** The body of an HTTP/1.1 response with chunked transfer coding, as far as it arrived. */
function dechunk(raw: Buffer): string {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  while (at < raw.length) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Writes `count` timeline events of ~`bytes` each for a call, announced to streams on commit. */
export async function produceEvents(server: TestServer, appId: string, callId: string, count: number, bytes: number): Promise<string[]> {
  const ids: string[] = [];
  const filler = 'x'.repeat(bytes);
  for (let start = 0; start < count; start += 100) {
    const n = Math.min(100, count - start);
    const rows = await server.runtime.database.db.transaction((tx) =>
      appendEvents(
        tx as never,
        { appId, id: callId },
        { actorType: 'system', actorId: 'test' },
        Array.from({ length: n }, (_, i) => ({ eventType: 'updated', payload: { fields: ['guest_intake_notes'], note: `${start + i} ${filler}` } })),
        new Date(),
      ),
    );
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

export const STREAM_ALL = 'subscription($appId: UUID!, $after: UUID) { scheduledCallEvents(appId: $appId, after: $after) { id: eventId } }';
