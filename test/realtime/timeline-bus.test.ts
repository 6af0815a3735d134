import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/client.js';
import type { Logger } from '../../src/log.js';
import { EventBus } from '../../src/events/log.js';
import type { AppEventRow } from '../../src/events/tables.js';
import { FANOUT_SLICE, TimelineBus } from '../../src/realtime/timeline-bus.js';

// The timeline bus (a view of the event log's bus) on its own, with a stand-in for PGlite's
// LISTEN (the notification callback) and for the read-back of an event too large for its NOTIFY
// payload. timeline.test.ts covers the bus end to end over graphql-sse on both storages.

const APP = '00000000-0000-4000-8000-00000000000a';
const CALL = '00000000-0000-4000-8000-0000000000c1';

function row(seq: number): AppEventRow {
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    appId: APP,
    type: 'scheduled_call.updated',
    actorType: 'app',
    actorId: 'test',
    resource: null,
    subjectId: CALL,
    details: { n: seq },
    occurredAt: new Date('2026-11-24T10:00:00Z'),
  };
}

function announcement(event: AppEventRow, inline: boolean): string {
  const base = { type: event.type, subjectId: event.subjectId, id: event.id, seq: event.seq, appId: event.appId };
  return JSON.stringify(inline ? { ...base, event: { ...event, occurredAt: event.occurredAt.toISOString() } } : base);
}

async function busWith(readBack: (id: string) => Promise<AppEventRow | undefined>) {
  let notify: ((payload: string) => void) | undefined;
  const where = (id: string) => readBack(id).then((found) => (found ? [found] : []));
  const database = {
    kind: 'pglite',
    pglite: {
      listen: async (_channel: string, callback: (payload: string) => void) => {
        notify = callback;
        return async () => {};
      },
    },
    // The read-back's query chain; `where` gets drizzle's condition, the stand-in answers for the large event.
    db: { select: () => ({ from: () => ({ where: () => where(large.id) }) }) },
  } as unknown as Database;
  const logger = { error: () => {}, warn: () => {} } as unknown as Logger;
  const events = new EventBus(database, logger);
  await events.start();
  const bus = new TimelineBus(events);
  return { bus, events, notify: (payload: string) => notify!(payload) };
}

let large = row(1);
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('TimelineBus fan-out', () => {
  it('serves a large audience a slice per turn of the event loop, so other work runs in between', async () => {
    const { bus, notify } = await busWith(async () => undefined);
    const log: Array<number | 'other work'> = [];
    const audience = FANOUT_SLICE * 2 + 50;
    for (let i = 0; i < audience; i++) {
      bus.subscribe({ appId: APP }, () => {
        // Work that arrives while the first subscriber is served (a request, a socket read).
        if (i === 0) setImmediate(() => log.push('other work'));
        log.push(i);
      }, () => {});
    }
    notify(announcement(row(7), true));
    await vi.waitFor(() => expect(log).toHaveLength(audience + 1), { timeout: 5000 });
    // Every subscriber once, in order, with the other work after the first slice.
    expect(log.indexOf('other work')).toBe(FANOUT_SLICE);
    expect(log.filter((entry) => entry !== 'other work')).toEqual([...Array(audience).keys()]);
  });

  it('keeps the order of events when the first one must be read back', async () => {
    large = row(1);
    const { bus, notify } = await busWith(async (id) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return id === large.id ? large : undefined;
    });
    const received: number[] = [];
    bus.subscribe({ appId: APP, callId: CALL }, (event) => received.push(event.seq), () => {});
    notify(announcement(large, false));
    notify(announcement(row(2), true));
    // The read-back takes its time on a loaded machine: wait for both, then check their order.
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 5000 });
    expect(received).toEqual([1, 2]);
  });

  it('skips a subscriber that left while a fan-out was being served', async () => {
    const { bus, notify } = await busWith(async () => undefined);
    const served: number[] = [];
    const leave: Array<() => void> = [];
    const last = FANOUT_SLICE * 2 - 1;
    for (let i = 0; i <= last; i++) {
      leave.push(
        bus.subscribe({ appId: APP }, () => {
          served.push(i);
          // The first subscriber's event closes the last one's stream (its client went away).
          if (i === 0) leave[last]!();
        }, () => {}),
      );
    }
    notify(announcement(row(3), true));
    await vi.waitFor(() => expect(served).toHaveLength(last), { timeout: 5000 });
    await settle();
    expect(served).toEqual([...Array(last).keys()]);
    expect(bus.size).toBe(last);
  });

  it('serves nobody more once the bus has ended its streams mid fan-out', async () => {
    const { bus, events, notify } = await busWith(async () => undefined);
    const served: number[] = [];
    let ended = 0;
    for (let i = 0; i < FANOUT_SLICE * 2; i++) {
      bus.subscribe({ appId: APP }, () => {
        served.push(i);
        if (i === 0) setImmediate(() => events.endStreams());
      }, () => ended++);
    }
    notify(announcement(row(4), true));
    await vi.waitFor(() => expect(ended).toBe(FANOUT_SLICE * 2), { timeout: 5000 });
    await settle();
    expect(served).toEqual([...Array(FANOUT_SLICE).keys()]);
    expect(ended).toBe(FANOUT_SLICE * 2);
    expect(bus.size).toBe(0);
  });
});
