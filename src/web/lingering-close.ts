import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection answered early keeps reading what its client still sends. */
export const LINGER_MS = 2_000;

const lingering = new WeakSet<Socket>();

/**
 * A "lingering close", as Apache httpd and nginx do: for a connection whose request is answered
 * before its body was read (a 413), closing at once would reset the connection while the client
 * is still uploading, and a reset can make the client lose the answer it had not read yet.
 * Instead, once the response is written (node calls `destroySoon` for a `Connection: close`
 * response), the write side is shut (FIN) and what the client still sends is read and dropped
 * until it closes its side or `lingerMs` passes; only then is the socket destroyed.
 */
export function lingerOnClose(incoming: IncomingMessage | undefined, lingerMs = LINGER_MS): void {
  const socket = incoming?.socket;
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  let started = false;
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (started) return;
    started = true;
    if (!this.writableEnded) this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The HTTP parser keeps reading the socket; the request's unread body is dropped.
    incoming?.resume();
    this.resume();
  };
}
