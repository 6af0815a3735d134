import net from 'node:net';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';

// Two faults of postgres.js 3.4.9 in how a pooled connection starts over after its socket closes,
// both seen as test/faults/postgres-restart.test.ts failing (a restart under load), both fixed by
// patches/postgres+3.4.9.patch, both reproduced here against a minimal fake server: no database,
// no timing luck.
//
// 1. Small writes wait behind a setImmediate. When the socket closed while one waited, the
//    immediate was cancelled but its handle and bytes were kept, so the next socket never flushed
//    its startup message: the first query after a restart hung until connect_timeout (10 s).
//    (LanternOps/breeze#3225 found the same.)
// 2. A FATAL error (57P01 on shutdown) for the query in flight was kept with that query after the
//    close, and replayed onto the first query of the next socket (porsager/postgres#1223).

const READY = message('Z', Buffer.from('I'));

function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const cstrings = (...parts: string[]) => Buffer.from(parts.map((p) => `${p}\0`).join(''));
const FATAL_SHUTDOWN = message(
  'E',
  Buffer.concat([cstrings('SFATAL', 'VFATAL', 'C57P01', 'Mterminating connection due to administrator command'), Buffer.from([0])]),
);

/**
 * Speaks just enough of the protocol for parameterless queries answering no rows: startup,
 * simple queries, and the extended protocol's Parse/Describe/Bind/Execute/Sync. `killNext`
 * answers the next query with FATAL 57P01 and closes the socket, as a fast shutdown does.
 */
function fakeServer() {
  const state = { startups: 0, queries: 0, killNext: false };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let started = false;
    let buffered = Buffer.alloc(0);
    socket.on('data', (data) => {
      buffered = Buffer.concat([buffered, data]);
      if (!started) {
        if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
        buffered = buffered.subarray(buffered.readInt32BE(0));
        started = true;
        state.startups++;
        socket.write(Buffer.concat([message('R', Buffer.from([0, 0, 0, 0])), READY])); // AuthenticationOk
      }
      const out: Buffer[] = [];
      while (buffered.length >= 5 && buffered.length >= 1 + buffered.readInt32BE(1)) {
        const type = String.fromCharCode(buffered[0]!);
        const body = buffered.subarray(5, 1 + buffered.readInt32BE(1));
        buffered = buffered.subarray(1 + buffered.readInt32BE(1));
        if ((type === 'Q' || type === 'P') && state.killNext) {
          state.killNext = false;
          socket.end(FATAL_SHUTDOWN);
          return;
        }
        if (type === 'Q') state.queries++, out.push(message('C', cstrings('SELECT 0')), READY);
        else if (type === 'P') state.queries++, out.push(message('1'));
        else if (type === 'B') out.push(message('2'));
        else if (type === 'D') out.push(...(body[0] === 0x53 ? [message('t', Buffer.from([0, 0]))] : []), message('n'));
        else if (type === 'E') out.push(message('C', cstrings('SELECT 0')));
        else if (type === 'S') out.push(READY);
        else if (type === 'X') return void socket.end();
      }
      if (out.length) socket.write(Buffer.concat(out));
    });
  });
  return {
    state,
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

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
