import { describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/client.js';
import type { Logger } from '../../src/log.js';
import { LogBus, type LogRow, type LogSpec } from '../../src/realtime/log-bus.js';

// The log bus's catch-up after postgres.js listens again, on its own: a stand-in LISTEN whose
// notification and re-listen callbacks the test calls, over an in-memory log.
// listen-catch-up.test.ts covers the same end to end on PostgreSQL.

const A = 'app-a';
const B = 'app-b';
const START_SEQ = 100;

function harness(options: { failReads?: boolean } = {}) {
  const log: LogRow[] = [];
  let notify: ((payload: string) => void) | undefined;
  let listenAgain: (() => void) | undefined;
  const spec: LogSpec<LogRow> = {
    channel: 'test_log',
    header: () => ({}),
    toJson: (row) => ({ ...row }),
    fromJson: (json) => json as unknown as LogRow,
    load: async () => undefined,
    lastSeq: async () => START_SEQ,
    after: async (_database, appIds, afterSeq, limit) => {
      if (options.failReads) throw new Error('the log cannot be read');
      return log.filter((row) => appIds.includes(row.appId) && row.seq > afterSeq).sort((x, y) => x.seq - y.seq).slice(0, limit);
    },
  };
  const database = {
    kind: 'postgres',
    listener: {
      listen: async (_channel: string, onPayload: (payload: string) => void, onListen: () => void) => {
        notify = onPayload;
        listenAgain = onListen;
        onListen();
        return { unlisten: async () => {} };
      },
    },
  } as unknown as Database;
  const logger = { error: () => {}, warn: () => {}, info: () => {} } as unknown as Logger;
  const bus = new LogBus(spec, database, logger);
  const row = (seq: number, appId = A): LogRow => ({ id: `row-${seq}`, seq, appId });
  /** Committed and announced. */
  const announce = (seq: number, appId = A) => {
    const r = row(seq, appId);
    if (!log.some((x) => x.seq === seq)) log.push(r);
    notify!(JSON.stringify({ ...r, event: r }));
  };
  /** Committed while no one listened: in the log, never announced. */
  const commitUnannounced = (seq: number, appId = A) => log.push(row(seq, appId));
  return { bus, announce, commitUnannounced, listenAgain: () => listenAgain!(), start: () => bus.start() };
}

function subscriber(bus: LogBus<LogRow>, appId = A) {
  const seqs: number[] = [];
  const ends: (boolean | undefined)[] = [];
  bus.subscribeTo({ appId }, (row) => seqs.push(row.seq), (interrupted) => ends.push(interrupted));
  return { seqs, ends };
}

describe('LogBus catch-up after listening again', () => {
  it("delivers what committed unannounced, once and in log order; nothing from before it started, nor another app's", async () => {
    const h = harness();
    h.commitUnannounced(90); // before the bus started
    await h.start();
    const a = subscriber(h.bus);
    h.announce(101);
    h.commitUnannounced(103);
    h.commitUnannounced(102);
    h.commitUnannounced(104, B);
    h.listenAgain();
    await vi.waitFor(() => expect(a.seqs).toEqual([101, 102, 103]));
    // A late announcement of a row already caught up is not delivered again; a new one is.
    h.announce(103);
    h.announce(105);
    await vi.waitFor(() => expect(a.seqs).toEqual([101, 102, 103, 105]));
    expect(a.ends).toEqual([]);
  });

  it('a row announced with the new LISTEN, above the gap, does not hide the gap below it', async () => {
    const h = harness();
    await h.start();
    const a = subscriber(h.bus);
    h.announce(101);
    h.commitUnannounced(102); // written and committed while the connection was down
    h.announce(103); // arrives with the reply of the new LISTEN, before the catch-up
    h.listenAgain();
    await vi.waitFor(() => expect([...a.seqs].sort((x, y) => x - y)).toEqual([101, 102, 103]));
    expect(a.seqs).toHaveLength(3);
  });

  it('with more than 10,000 rows to deliver, the streams of the apps caught up end as interrupted (to resume from the store)', async () => {
    const h = harness();
    await h.start();
    const a = subscriber(h.bus);
    const b = subscriber(h.bus, B);
    for (let seq = START_SEQ + 1; seq <= START_SEQ + 10_001; seq++) h.commitUnannounced(seq);
    h.listenAgain();
    await vi.waitFor(() => expect(a.ends).toEqual([true]), { timeout: 10_000 });
    // Every app with streams here was in the one catch-up: all end, each once.
    expect(b.ends).toEqual([true]);
    expect(h.bus.size).toBe(0);
    // The first 10,000 were delivered before the bus gave up.
    expect(a.seqs).toHaveLength(10_000);
  });

  it('when the log cannot be read, the streams it concerned end as interrupted', async () => {
    const h = harness({ failReads: true });
    await h.start();
    const a = subscriber(h.bus);
    h.listenAgain();
    await vi.waitFor(() => expect(a.ends).toEqual([true]));
    expect(h.bus.size).toBe(0);
  });

  it('the first LISTEN catches nothing up', async () => {
    const h = harness();
    h.commitUnannounced(101);
    await h.start();
    const a = subscriber(h.bus);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.seqs).toEqual([]);
  });
});
