import net from 'node:net';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServer } from './fixtures/fake-postgres.mjs';

// Two faults of postgres.js 3.4.9 in how a pooled connection starts over after its socket closes
// (a PostgreSQL restart under load), fixed by patches/postgres+3.4.9.patch and reproduced here
// against a minimal fake server: no database, no timing luck.
//
// 1. Small writes wait behind a setImmediate. When the socket closes while one waits, the
//    immediate is cancelled but its handle and bytes are kept, so the next socket never flushes
//    its startup message: the first query after a restart hangs until connect_timeout.
// 2. A FATAL error (57P01 on shutdown) for the query in flight is kept with that query after the
//    close, and replayed onto the first query of the next socket.

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setUp(options: postgres.Options<{}> = {}) {
  const server = fakeServer();
  const port = await server.listen();
  cleanup.push(() => server.close());
  const sockets: net.Socket[] = [];
  const sql = postgres({
    host: '127.0.0.1',
    port,
    max: 1,
    connect_timeout: 5,
    ...options,
    // Our own sockets, so a test can close one at the moment it needs.
    socket: () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
        sockets.push(socket);
      }),
  } as postgres.Options<{}>);
  cleanup.push(() => sql.end({ timeout: 0 }));
  return { server, sql, sockets };
}

describe('postgres.js: a pooled connection starting over after its socket closed', () => {
  it('flushes its startup message at once, though a write was still buffered at the close', async () => {
    const { server, sql, sockets } = await setUp({ fetch_types: false });
    await sql`select 1`;
    expect(server.state.startups).toBe(1);

    // In one setImmediate callback: a query (its bytes wait for the client's next setImmediate)
    // and the socket's end. Node runs close callbacks after this phase, before that write.
    const failed = await new Promise<unknown>((resolve) =>
      setImmediate(() => {
        sql`select 2`.then(resolve, resolve);
        sockets[0]!.destroy();
      }),
    );
    expect(failed).toMatchObject({ code: 'CONNECTION_CLOSED' });

    const started = Date.now();
    await sql`select 3`; // unpatched: CONNECT_TIMEOUT after 5 s
    expect(server.state.startups).toBe(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('does not replay the FATAL error of a query killed by a shutdown onto the next query', async () => {
    const { server, sql } = await setUp({ fetch_types: false });
    await sql`select 1`;
    server.state.killNext = true;
    await expect(sql`select 2`).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    // A new socket, a new backend: this query has nothing to do with the old one's end.
    await expect(sql`select 3`).resolves.toHaveLength(0); // unpatched: rejects with 57P01
    expect(server.state.startups).toBe(2);
  });

  it('nor the FATAL error of a connection killed while it read the array types', async () => {
    const { server, sql } = await setUp({ fetch_types: true });
    server.state.killNext = true; // the first query on the first socket is the array-type query
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    cleanup.push(() => process.off('unhandledRejection', onRejection));
    await expect(sql`select 1`).resolves.toHaveLength(0); // unpatched: rejects with 57P01
    await new Promise((r) => setTimeout(r, 50));
    expect(rejections).toEqual([]);
    expect(server.state.startups).toBe(2);
  });
});
