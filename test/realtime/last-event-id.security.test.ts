import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, everyDay, importRecords } from '../scheduling/fixtures.js';
import { openStream } from './event-stream.fixtures.js';
import { produceEvents } from './stream-helpers.js';
import { APP_EVENTS, booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// Last-Event-ID is the caller's: a malformed or over-long one is refused before the stream opens,
// and one of another app or call is the error result a foreign `after` gets, never its events.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const book = booker(server);
let refusedCall: string | undefined;

describe('Last-Event-ID refused', () => {
  it.each([
    ['not a UUID', 'abc'],
    ['a UUID with a character more', '00000000-0000-4000-8000-000000000000x'],
    ['longer than 100 characters', 'a'.repeat(101)],
    ['very long', 'a'.repeat(8000)],
  ])('%s: 400 invalid_request naming Last-Event-ID, no stream', async (_name, value) => {
    const id = (refusedCall ??= await book(tenant, 3, 9));
    const stream = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id }, { lastEventId: value });
    await stream.done;
    expect(stream.status).toBe(400);
    expect(stream.headers['content-type']).toMatch(/application\/json/);
    const body = JSON.parse(stream.body()) as { errors: { extensions: { code: string; details: { field: string }[] } }[] };
    expect(body.errors[0]!.extensions.code).toBe('invalid_request');
    expect(body.errors[0]!.extensions.details[0]!.field).toBe('Last-Event-ID');
    expect(stream.frames).toEqual([]);
  });

  it("another app's event, another call's event, an unknown id: the invalid_request error result and none of its events", async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const mine = await book(tenant, 4, 9);
    const sibling = await book(tenant, 4, 13);
    await settle();
    const theirCall = await booker(server)(other, 4, 9);
    const [theirs] = await produceEvents(server, other.appId, theirCall, 3, 10);
    const [siblings] = await produceEvents(server, tenant.appId, sibling, 3, 10);
    const cases: [string, string, Record<string, unknown>][] = [
      ["another app's event, on my call", theirs!, { app: tenant.appId, id: mine }],
      ["another app's event, on the app-wide stream", theirs!, { app: tenant.appId }],
      ["another call's event, on my call", siblings!, { app: tenant.appId, id: mine }],
      ['an unknown id', '00000000-0000-4000-8000-000000000000', { app: tenant.appId, id: mine }],
    ];
    for (const [name, lastEventId, variables] of cases) {
      const query = 'id' in variables ? TIMELINE : APP_EVENTS;
      const stream = await openStream(server, tenant.accessToken, query, variables, { lastEventId });
      await stream.done;
      expect(stream.status, name).toBe(200);
      const nexts = stream.nexts();
      expect(nexts, name).toHaveLength(1);
      expect(nexts[0]!.id, name).toBeUndefined();
      expect(nexts[0]!.data!.data ?? null, name).toBeNull();
      expect(nexts[0]!.data!.errors![0]!.extensions, name).toMatchObject({ code: 'invalid_request', details: [{ field: 'Last-Event-ID' }] });
      expect(stream.frames.map((f) => f.event), name).toEqual(['next', 'complete']);
    }
  });

  it("a valid after does not rescue a foreign Last-Event-ID (the header wins)", async () => {
    const id = await book(tenant, 5, 9);
    const [first] = await produceEvents(server, tenant.appId, id, 2, 10);
    const stream = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id, after: first }, { lastEventId: '00000000-0000-4000-8000-000000000000' });
    await stream.done;
    expect(stream.nexts().map((f) => f.data!.errors?.[0]?.extensions?.code)).toEqual(['invalid_request']);
  });
});
