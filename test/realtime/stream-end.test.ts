import { describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { agent, everyDay, importRecords } from '../scheduling/fixtures.js';
import { APP_EVENTS, booker, settle } from './timeline.fixtures.js';

// A stream the server ends (its token revoked, the server shutting down) sends `complete` and
// then ends its HTTP response: a client sees the body finish, not a connection left open (or
// cut at the end of the shutdown grace) after the last frame.
const { server } = useServer();
const book = booker(server);

/** A subscription read as plain HTTP: `ended` resolves with the whole body once the response ends. */
async function openStream(target: TestServer, token: string, appId: string) {
  const res = await fetch(`${target.url}/graphql/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: APP_EVENTS, variables: { app: appId } }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { ended, cancel: () => reader.cancel().catch(() => {}) };
}

const STILL_OPEN = 'still open';
const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<typeof STILL_OPEN>((resolve) => setTimeout(() => resolve(STILL_OPEN), ms))]);

describe('a stream the server ends finishes its response', () => {
  it('revoked: `complete`, then the body ends', async () => {
    const watcher = await server.tenant();
    await importRecords(server, watcher.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const streamToken = await watcher.token();
    const stream = await openStream(server, streamToken, watcher.appId);
    await settle();
    const revoked = await fetch(`${server.url}/api/v1/oauth/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${watcher.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: streamToken }),
    });
    expect(revoked.status).toBe(200);
    // The revocation is checked before the next event.
    await book(watcher, 5, 10);
    const body = await within(stream.ended, 10_000);
    await stream.cancel();
    expect(body).not.toBe(STILL_OPEN);
    expect(body).toContain('event: complete');
    expect(body).not.toContain('event: next');
  });

  it('graceful shutdown: `complete`, then the body ends, before the grace period cuts it', async () => {
    const own = await startTestServer();
    const t = await own.tenant();
    const stream = await openStream(own, t.accessToken, t.appId);
    await vi.waitFor(() => expect(own.runtime.timeline.size).toBe(1), { timeout: 10_000, interval: 50 });
    const closing = own.close();
    // Cut at the end of the grace period instead, the read fails (a socket error), not ends.
    const body = await stream.ended;
    expect(body).toContain('event: complete');
    await closing;
  });
});
