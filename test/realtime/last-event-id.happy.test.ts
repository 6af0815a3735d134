import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { eventIds, openStream } from './event-stream.fixtures.js';
import { produceEvents } from './stream-helpers.js';
import { APP_EVENTS, booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// Frames a browser's EventSource can resume: each next frame's id: is its event's id, and a
// reconnect with Last-Event-ID (GET, as EventSource sends it) carries on exactly where it stopped.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const book = booker(server);
/** A booked call whose `created` event has reached this instance's streams. */
const quietCall = async (day: number) => {
  const id = await book(tenant, day, 10);
  await settle();
  return id;
};

describe('SSE id: lines and Last-Event-ID', () => {
  it('GET with query and variables in the URL: every next frame carries id: with its event id', async () => {
    const id = await quietCall(3);
    const stream = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    expect(stream.status).toBe(200);
    await settle();
    const produced = await produceEvents(server, tenant.appId, id, 3, 10);
    await stream.until(3);
    const nexts = stream.nexts();
    expect(nexts.map((f) => f.id)).toEqual(produced);
    expect(eventIds(stream.frames, 'scheduledCallTimeline')).toEqual(produced);
    stream.close();
  });

  it('POST and the app-wide stream carry id: too', async () => {
    const id = await quietCall(4);
    const stream = await openStream(server, tenant.accessToken, APP_EVENTS, { app: tenant.appId }, { method: 'POST' });
    await settle();
    const produced = await produceEvents(server, tenant.appId, id, 2, 10);
    await stream.until(2);
    expect(stream.nexts().map((f) => f.id)).toEqual(produced);
    expect(eventIds(stream.frames, 'scheduledCallEvents')).toEqual(produced);
    stream.close();
  });

  it.each([
    ['Last-Event-ID', 5, (last: string) => ({ variables: {}, lastEventId: last })],
    ['after', 7, (last: string) => ({ variables: { after: last }, lastEventId: undefined })],
  ])('dropped after 3 events, 4 more written, a reconnect with %s receives exactly the 4, then live ones', async (_how, day, resume) => {
    const id = await quietCall(day);
    const first = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id });
    await settle();
    const before = await produceEvents(server, tenant.appId, id, 3, 10);
    await first.until(3);
    const last = first.nexts().at(-1)!.id!;
    expect(last).toBe(before[2]);
    first.close();
    await first.done;
    // As EventSource does, reconnect a moment later: the server has let go of the dropped stream.
    await settle();
    const missed = await produceEvents(server, tenant.appId, id, 4, 10);
    const how = resume(last);
    const second = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id, ...how.variables }, { lastEventId: how.lastEventId });
    await second.until(4);
    const live = await produceEvents(server, tenant.appId, id, 2, 10);
    await second.until(6);
    await settle();
    expect(second.nexts().map((f) => f.id)).toEqual([...missed, ...live]);
    expect(eventIds(second.frames, 'scheduledCallTimeline')).toEqual([...missed, ...live]);
    second.close();
  });

  it('with both, Last-Event-ID wins over after (it is newer)', async () => {
    const id = await quietCall(6);
    const ids = await produceEvents(server, tenant.appId, id, 5, 10);
    const stream = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id, after: ids[0] }, { lastEventId: ids[2] });
    await stream.until(2);
    await settle();
    expect(stream.nexts().map((f) => f.id)).toEqual(ids.slice(3));
    stream.close();
  });
});
