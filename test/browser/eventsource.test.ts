import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, chromiumSkipReason, useChromium } from '../helpers/chromium.js';
import { headerOf, startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { useServer } from '../helpers/use-server.js';
import { api } from '../scheduling/fixtures.js';
import { booker, seedAgents, settle, TIMELINE } from '../realtime/timeline.fixtures.js';

// A browser's own EventSource on GET /graphql/stream, the token in the URL as access_token: the
// connection is cut mid-stream (through a proxy standing in for the network), events are written
// while it is down, and the browser reconnects by itself with Last-Event-ID and receives every
// event once, in order.

const skipReason = chromiumSkipReason('test/browser/eventsource.test.ts');

interface PageState {
  opens: number;
  errors: number;
  received: { lastEventId: string; id: string; eventType: string }[];
  results: unknown[];
}

describe.skipIf(!chromiumPath)(`EventSource in headless Chromium${skipReason}`, () => {
  const { server, tenant } = useServer({ tenant: true });
  const chrome = useChromium();
  let proxy: TcpProxy;
  beforeAll(async () => {
    await seedAgents(server, tenant.appId);
    proxy = await startTcpProxy(server.url);
  });
  afterAll(() => proxy?.close());

  const state = (page: Page) => page.evaluate(() => (window as unknown as { state: PageState }).state);
  const until = async (page: Page, what: string, ok: (s: PageState) => boolean) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = await state(page);
      if (ok(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const streams = () => proxy.connections.filter((c) => c.requests[0]?.startsWith('GET /graphql/stream?'));

  it('reconnects by itself after a cut with Last-Event-ID and misses nothing', { timeout: 120_000 }, async () => {
    const id = await booker(server)(tenant, 3, 10);
    await settle();
    const page = await chrome.browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // A page of the service's origin (as the proxy serves it), so the stream is same-origin.
    await page.route(`${proxy.url}/dashboard.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>dashboard</title>' }));
    await page.goto(`${proxy.url}/dashboard.html`);
    await page.evaluate(
      ({ query, variables, token }) => {
        const state: PageState = { opens: 0, errors: 0, received: [], results: [] };
        (window as unknown as { state: PageState }).state = state;
        const url = new URL('/graphql/stream', location.origin);
        url.searchParams.set('query', query);
        url.searchParams.set('variables', JSON.stringify(variables));
        url.searchParams.set('access_token', token);
        const source = new EventSource(url);
        source.addEventListener('open', () => state.opens++);
        source.addEventListener('error', () => state.errors++);
        source.addEventListener('next', (event) => {
          const result = JSON.parse(event.data);
          state.results.push(result);
          const e = result.data?.scheduledCallTimeline;
          if (e) state.received.push({ lastEventId: event.lastEventId, id: e.id, eventType: e.eventType });
        });
      },
      { query: TIMELINE, variables: { app: tenant.appId, id }, token: tenant.accessToken },
    );
    await until(page, 'the stream to open', (s) => s.opens === 1);
    await settle();
    const calls = api(server, tenant);
    const patch = async (name: string) => expect((await calls.patch(id, { guestName: name })).status).toBe(200);

    for (const name of ['A1', 'A2', 'A3']) await patch(name);
    const before = await until(page, 'the first three events', (s) => s.received.length === 3);

    // Cut: the browser sees its connection fail and waits its reconnection time; meanwhile more changes.
    expect(streams()).toHaveLength(1);
    streams()[0]!.drop();
    for (const name of ['B1', 'B2', 'B3', 'B4']) await patch(name);
    await until(page, 'the reconnect and the missed events', (s) => s.opens === 2 && s.received.length === 7);
    for (const name of ['C1', 'C2']) await patch(name);
    const after = await until(page, 'the live events after the reconnect', (s) => s.received.length === 9);
    await settle();
    const final = await state(page);
    await page.close();

    const stored = ((await calls.get(id)).body.data.events as { id: string; event_type?: string }[]).map((e) => e.id);
    // Every event after `created`, once, in order, each frame's id the event's own.
    expect(stored).toHaveLength(10);
    expect(final.received.map((r) => r.id)).toEqual(stored.slice(1));
    expect(final.received.map((r) => r.lastEventId)).toEqual(stored.slice(1));
    expect(final.results).toHaveLength(9);
    expect(after.received.slice(0, 3)).toEqual(before.received);

    // The browser opened the same URL (token included) twice, the second time with the last id it had.
    const [first, second] = streams();
    expect(streams()).toHaveLength(2);
    expect(first!.requests).toHaveLength(1);
    expect(headerOf(first!.requests[0]!, 'last-event-id')).toBeUndefined();
    expect(headerOf(second!.requests[0]!, 'last-event-id')).toBe(stored[3]);
    expect(headerOf(second!.requests[0]!, 'authorization')).toBeUndefined();
    expect(second!.requests[0]!.split(' ')[1]).toBe(first!.requests[0]!.split(' ')[1]);
    expect(new URL(second!.requests[0]!.split(' ')[1]!, server.url).searchParams.get('access_token')).toBe(tenant.accessToken);
    expect(final.errors).toBeGreaterThanOrEqual(1);
    expect(problems).toEqual([]);
  });
});
