import { connect, createServer, type Socket } from 'node:net';

/** One client connection through the proxy. */
export interface ProxiedConnection {
  /** The request line and headers of each request the client sent on it, as sent. */
  requests: string[];
  /** Cuts the connection on both sides at once, as a network failure or a crashed peer does. */
  drop(): void;
  closed: boolean;
}

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: the target's origin as the client sees it. */
  url: string;
  connections: ProxiedConnection[];
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy in front of a test server: a client (a browser) connects to it as to the
 * server, and a test can cut a chosen connection mid-response, which neither side can tell from a
 * dropped network connection.
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    const connection: ProxiedConnection = {
      requests: [],
      closed: false,
      drop: () => {
        connection.closed = true;
        client.destroy();
        upstream.destroy();
      },
    };
    connections.push(connection);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        connection.drop();
      });
    }
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      // A request starts a chunk here: clients write each request's head in one piece.
      if (!/^[A-Z]+ \S+ HTTP\/1\.1\r\n/.test(text)) return;
      const end = text.indexOf('\r\n\r\n');
      connection.requests.push(end < 0 ? text : text.slice(0, end));
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A header's value in a raw request head (case-insensitive name), or undefined. */
export function headerOf(head: string, name: string): string | undefined {
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name.toLowerCase()) return line.slice(colon + 1).trim();
  }
  return undefined;
}
