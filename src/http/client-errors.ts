import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors/app-error.js';
import { requestIdOf } from '../web/request-id.js';

/** How a listener writes an error body: the API's envelope, or the video host's own (errors/envelope.ts). */
export type ClientErrorBody = (error: AppError) => unknown;

/** What node's HTTP parser refused, as the error a client is told. */
function parserRefusal(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW') return new AppError('invalid_request', `Request headers, the URL included, exceed ${maxHeaderSize} bytes`, { status: 431 });
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('invalid_request', 'The request was not received in time', { status: 408 });
  return new AppError('invalid_request', 'Malformed HTTP request', { status: 400 });
}

/**
 * A request node's parser refuses (headers or URL over its 16 KiB limit, a malformed request
 * line) never reaches the app, and node answered it with a bare status line: no envelope and no
 * X-Request-Id, which every response carries. Answered here in the listener's
 * format, and the connection closed, as node does.
 */
export function answerClientErrors(server: Server, body: ClientErrorBody): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response of an earlier request on this connection is being written: bytes of our own
    // would corrupt it (node's default handler makes the same check).
    const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
      socket.destroy();
      return;
    }
    const error = parserRefusal(err.code);
    const text = JSON.stringify(body(error));
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  });
}

/** Writes `error` as a whole response in the listener's format, the connection closed after it. */
function answerWith(req: IncomingMessage, res: ServerResponse, body: ClientErrorBody, error: AppError): void {
  const text = JSON.stringify(body(error));
  const incoming = req.headers['x-request-id'];
  res.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    // The headers were read: the caller's id is kept, as on every other answer.
    'X-Request-Id': requestIdOf(typeof incoming === 'string' ? incoming : undefined),
    Connection: 'close',
  });
  res.end(text);
}

/**
 * What node or the adapter refuses after parsing, with a bare status and no body: an HTTP/1.1
 * request without Host (node's own 400, RFC 9112 3.2), a request target that is neither a path
 * nor an absolute URL (`GET *`, the adapter's 400), an Expect other than 100-continue (node's
 * 417). The same answers in the listener's format. For `serve`'s `createServer` option.
 */
export function answeringMalformedRequests(body: ClientErrorBody) {
  return (options: ServerOptions, listener: RequestListener): Server => {
    const server = createServer({ ...options, requireHostHeader: false }, (req: IncomingMessage, res: ServerResponse) => {
      if (req.httpVersion === '1.1' && req.headers.host === undefined) return answerWith(req, res, body, new AppError('invalid_request', 'An HTTP/1.1 request needs a Host header', { status: 400 }));
      const target = req.url ?? '';
      if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return answerWith(req, res, body, new AppError('invalid_request', 'The request target must be a path', { status: 400 }));
      return listener(req, res);
    });
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
      answerWith(req, res, body, new AppError('invalid_request', 'Only Expect: 100-continue is supported', { status: 417 })),
    );
    return server;
  };
}
