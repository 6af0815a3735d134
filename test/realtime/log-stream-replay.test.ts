import { describe, expect, it } from 'vitest';
import { openLogStream, type LogSource } from '../../src/realtime/log-stream.js';
import type { LogRow } from '../../src/realtime/log-bus.js';
import type { RequestContext } from '../../src/runtime.js';

// A replay from far back, read by a reader that keeps up, from a store whose reads never wait on
// I/O (as embedded PGlite's do not): it must give the event loop turns as it goes, or every other
// request waits until it ends.
const STORED = 5_000;
const rows: LogRow[] = Array.from({ length: STORED }, (_, i) => ({ id: `e${i + 1}`, seq: i + 1, appId: 'app' }));

function stream() {
  let live: ((row: LogRow) => void) | undefined;
  const source: LogSource<LogRow> = {
    bus: {
      subscribeTo: (_filter, listener) => {
        live = listener;
        return () => (live = undefined);
      },
    },
    filter: { appId: 'app' } as unknown as LogSource<LogRow>['filter'],
    storedAfter: (after, limit) => Promise.resolve(rows.filter((r) => r.seq > after).slice(0, limit)),
  };
  const ctx = { runtime: { config: { STREAM_QUEUE_EVENTS: 10_000, STREAM_QUEUE_BYTES: 1 << 24 } }, auth: undefined } as unknown as RequestContext;
  return { iterator: openLogStream(ctx, source, 0, () => {}), push: (row: LogRow) => live?.(row) };
}

describe('log stream replay', () => {
  it('gives the event loop turns while it replays, sending every stored row once, in order', async () => {
    const { iterator } = stream();
    let turns = 0;
    const tick = () => {
      turns++;
      if (!stopped) setImmediate(tick);
    };
    let stopped = false;
    setImmediate(tick);
    const seqs: number[] = [];
    while (seqs.length < STORED) seqs.push((await iterator.next()).value!.seq);
    stopped = true;
    await iterator.return(undefined);
    expect(seqs).toEqual(rows.map((r) => r.seq));
    // A turn at least every hundred rows; without them the replay ran in one (turns 0).
    expect(turns).toBeGreaterThanOrEqual(STORED / 100 - 1);
  });

  it('a live copy of a recently replayed row is skipped; a new row passes', async () => {
    const { iterator, push } = stream();
    for (let i = 0; i < STORED; i++) await iterator.next();
    push(rows[STORED - 1]!); // the last row, notified late
    push({ id: 'new', seq: STORED + 1, appId: 'app' });
    expect((await iterator.next()).value).toMatchObject({ id: 'new' });
    await iterator.return(undefined);
  });
});
