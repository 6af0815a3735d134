import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { TestServer } from '../helpers/server.js';

/** One SSE frame as EventSource parses it: its `id:` (if any), event name and parsed data. */
export interface Frame {
  id: string | undefined;
  event: string;
  data: { data?: Record<string, { id: string; eventType: string }>; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null;
}

/**
 * A subscription on /graphql/stream read frame by frame, as EventSource does: GET with the query
 * and variables in the URL (or POST), and Last-Event-ID when `lastEventId` is given; the token in
 * the Authorization header, or as `access_token` in the URL with `accessToken` (both when both).
 */
export async function openStream(
  server: TestServer,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown>,
  options: { lastEventId?: string; method?: 'GET' | 'POST'; accessToken?: string } = {},
) {
  const method = options.method ?? 'GET';
  const url = new URL(`${server.url}/graphql/stream`);
  if (method === 'GET') {
    url.searchParams.set('query', query);
    url.searchParams.set('variables', JSON.stringify(variables));
  }
  // The token as a browser's EventSource sends it: a query parameter (of a GET or, to be refused, a POST).
  if (options.accessToken !== undefined) url.searchParams.set('access_token', options.accessToken);
  const body = method === 'POST' ? JSON.stringify({ query, variables }) : undefined;
  // node:http, not fetch: close() destroys the socket, as a dropped connection does.
  const request = httpRequest(url, {
    method,
    headers: {
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
      accept: 'text/event-stream',
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(options.lastEventId !== undefined && { 'last-event-id': options.lastEventId }),
    },
  });
  request.on('error', () => {});
  request.end(body);
  const response = await new Promise<IncomingMessage>((resolve) => request.once('response', resolve));
  response.setEncoding('utf8');
  response.on('error', () => {});
  const frames: Frame[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let text = '';
  let raw = '';
  response.on('data', (chunk: string) => {
    raw += chunk;
    if (!(response.headers['content-type'] ?? '').includes('text/event-stream')) return;
    text += chunk;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        fields.set(line.slice(0, colon), line.slice(colon + 1).replace(/^ /, ''));
      }
      if (!fields.has('event')) continue;
      const data = fields.get('data');
      frames.push({ id: fields.get('id'), event: fields.get('event')!, data: data ? (JSON.parse(data) as Frame['data']) : null });
      for (const w of waiters.filter((w) => nexts().length >= w.count)) w.resolve();
    }
  });
  const done = new Promise<void>((resolve) => response.once('close', () => resolve()));
  const nexts = () => frames.filter((f) => f.event === 'next');
  return {
    status: response.statusCode!,
    headers: response.headers,
    /** The body as received (a refusal's JSON). */
    body: () => raw,
    frames,
    nexts,
    done,
    /** Resolves once `count` next frames arrived (rejects after 5 s). */
    until: (count: number) =>
      new Promise<void>((resolve, reject) => {
        if (nexts().length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out with ${nexts().length} of ${count}: ${JSON.stringify(frames)}`)), 5000);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    /** Drops the connection, as a network failure would. */
    close: () => request.destroy(),
  };
}

/** The event ids a stream's next frames carried in their data, in order. */
export const eventIds = (frames: Frame[], field: string) => frames.filter((f) => f.event === 'next').map((f) => f.data!.data![field]!.id);
