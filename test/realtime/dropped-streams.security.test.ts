import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { openStream } from './event-stream.fixtures.js';
import { produceEvents } from './stream-helpers.js';
import { APP_EVENTS, booker, seedAgents, TIMELINE } from './timeline.fixtures.js';

// A client that leaves a stream while its events are being written must cost nothing but the
// stream: an exception nobody catches there ends the whole process.
describe('streams dropped while events arrive', () => {
  const { server, tenant } = useServer({ tenant: true });
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);
  beforeAll(() => process.on('uncaughtException', record));
  afterAll(() => process.off('uncaughtException', record));

  it('40 streams (GET and POST) dropped right after their events, with more events behind: no uncaught exception', async () => {
    await seedAgents(server, tenant.appId);
    const callId = await booker(server)(tenant, 5, 10);
    for (let i = 0; i < 40; i++) {
      const stream =
        i % 2
          ? await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id: callId })
          : await openStream(server, tenant.accessToken, APP_EVENTS, { app: tenant.appId }, { method: 'POST' });
      expect(stream.status).toBe(200);
      await new Promise((r) => setTimeout(r, 30));
      await produceEvents(server, tenant.appId, callId, 2, 10);
      await stream.until(2);
      stream.close();
      // Events written while the server is still tearing the dropped stream down.
      await produceEvents(server, tenant.appId, callId, 3, 10);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(uncaught.map(String)).toEqual([]);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 120_000);
});
