import { EventSource } from 'eventsource';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { produceEvents } from './stream-helpers.js';
import { booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// A real EventSource client (the `eventsource` package, which follows the WHATWG processing model
// and, unlike a browser's, can send the bearer token the service requires): the connection drops,
// it reconnects by itself with Last-Event-ID, and every event arrives once, in order.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

describe('EventSource resumes with Last-Event-ID', () => {
  it('after a dropped connection, the reconnect receives exactly the events written meanwhile', { timeout: 30_000 }, async () => {
    const id = await booker(server)(tenant, 3, 10);
    await settle();
    const url = new URL(`${server.url}/graphql/stream`);
    url.searchParams.set('query', TIMELINE);
    url.searchParams.set('variables', JSON.stringify({ app: tenant.appId, id }));
    const sentLastEventIds: (string | null)[] = [];
    let drop: (() => void) | undefined;
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${tenant.accessToken}`);
        sentLastEventIds.push(headers.get('last-event-id'));
        const connection = new AbortController();
        init?.signal?.addEventListener('abort', () => connection.abort());
        const response = await fetch(input, { ...init, headers, signal: connection.signal });
        // A drop as the network shows it: the body fails mid-stream, and the request is gone.
        let failBody!: (error: Error) => void;
        const body = response.body!.pipeThrough(new TransformStream({ start: (controller) => void (failBody = (error) => controller.error(error)) }));
        drop = () => {
          failBody(new TypeError('terminated'));
          connection.abort();
        };
        return new Response(body, { status: response.status, headers: response.headers });
      },
    });
    const received: { lastEventId: string; eventId: string }[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const until = (count: number) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out with ${received.length} of ${count}`)), 15_000);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    source.addEventListener('next', (event) => {
      const result = JSON.parse(event.data) as { data: { scheduledCallTimeline: { id: string } } };
      received.push({ lastEventId: event.lastEventId, eventId: result.data.scheduledCallTimeline.id });
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
    });
    const opened = () => new Promise<void>((resolve) => source.addEventListener('open', () => resolve(), { once: true }));
    await opened();
    await settle();
    const before = await produceEvents(server, tenant.appId, id, 3, 10);
    await until(3);

    // The connection drops; EventSource waits its reconnection time, during which more events are written.
    const reopened = opened();
    drop!();
    await settle();
    const missed = await produceEvents(server, tenant.appId, id, 4, 10);
    await reopened;
    await until(7);
    const live = await produceEvents(server, tenant.appId, id, 2, 10);
    await until(9);
    await settle();
    source.close();

    expect(sentLastEventIds).toEqual([null, before[2]]);
    expect(received.map((r) => r.eventId)).toEqual([...before, ...missed, ...live]);
    expect(received.map((r) => r.lastEventId)).toEqual([...before, ...missed, ...live]);
  });
});
