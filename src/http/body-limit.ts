import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../errors/app-error.js';
import { lingerOnClose } from '../web/lingering-close.js';
import type { HttpEnv } from '../web/hono-env.js';

/** The largest request body any listener reads: over 1 MiB is a 413. */
export const ONE_MIB = 1024 * 1024;

/** @hono/node-server's bindings: the node request behind the web one. */
const incomingOf = (c: Context<HttpEnv>) => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;

const payloadTooLarge = (c: Context<HttpEnv>): never => {
  // The unread upload makes the connection unusable: tell the client not to reuse it, and read
  // what it still sends for a while so that it gets the answer rather than a reset.
  lingerOnClose(incomingOf(c));
  throw new AppError('payload_too_large', 'Request body exceeds 1 MiB', { headers: { Connection: 'close' } });
};
const streamedBodyLimit = bodyLimit({ maxSize: ONE_MIB, onError: payloadTooLarge });

const DECIMAL = /^\s*\d+\s*$/;

/** Whether a Content-Length header value announces more than the limit. */
export const announcesTooLarge = (length: string | undefined) => length !== undefined && DECIMAL.test(length) && Number(length) > ONE_MIB;

/**
 * 413 for a body over 1 MiB. HTTP/1.1 framing tells from the headers alone: no Content-Length
 * and no Transfer-Encoding means no body, and a Content-Length is checked as a number; only a
 * chunked body is counted as it streams (hono's bodyLimit). Asking hono's bodyLimit about every
 * request touched `Request.body`, which makes @hono/node-server build a full web Request (and
 * stream the body through it) even for a GET, a cost every request would pay.
 */
export const tooLarge: MiddlewareHandler<HttpEnv> = (c, next) => {
  const transferEncoding = c.req.header('transfer-encoding');
  if (transferEncoding === undefined) {
    const length = c.req.header('content-length');
    if (length === undefined) return next();
    if (DECIMAL.test(length)) return Number(length) > ONE_MIB ? payloadTooLarge(c) : next();
  }
  return streamedBodyLimit(c, next);
};
