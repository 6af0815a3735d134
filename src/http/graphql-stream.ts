import { STATUS_CODES } from 'node:http';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { createHandler, type RequestContext as SseRequestContext } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';
import { AppError, validationFailed } from '../errors/app-error.js';
import { UUID_PATTERN } from '../graphql/builder.js';
import type { RequestContext } from '../runtime.js';
import { clientConcurrency } from './client-concurrency.js';

/** The code of an error graphql-sse answers by itself (bad JSON, no query, a wrong method), by status. */
const codeByStatus: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed', 406: 'invalid_request', 415: 'unsupported_media_type' };

/** An error as the client sees it: yoga's status hint (`extensions.http`) is not part of it. */
function clientError(error: GraphQLError): Record<string, unknown> {
  const { http: _http, ...extensions } = (error.extensions ?? {}) as Record<string, unknown>;
  return { ...error.toJSON(), extensions };
}

const withoutHttp = (result: ExecutionResult): ExecutionResult =>
  result.errors?.some((e) => e.extensions && 'http' in e.extensions)
    ? ({ ...result, errors: result.errors.map((e) => clientError(e)) } as unknown as ExecutionResult)
    : result;

/** Bytes handed to graphql-sse and not yet read by the socket writer, past which a stream waits. */
const HIGH_WATER_BYTES = 64 * 1024;

/** A stream's bytes produced (results handed to graphql-sse) and consumed (read by the socket writer). */
interface Flow {
  produced: number;
  consumed: number;
  closed: boolean;
  wake?: () => void;
  /** The cursor the source reported while the result being pulled was made. */
  cursor: string | undefined;
  /** The cursor of each result handed to graphql-sse whose `next` frame is not written yet, in order. */
  cursors: (string | undefined)[];
}

const wakeFlow = (flow: Flow) => {
  const wake = flow.wake;
  flow.wake = undefined;
  wake?.();
};

/**
 * graphql-sse pulls a subscription's results as fast as they come and queues them (unbounded)
 * until the client reads. This pulls the next result only while less than HIGH_WATER_BYTES wait
 * unread, so a slow reader's backlog stays in the subscription's own bounded queue, which ends
 * the stream with stream_lagging when it overflows.
 */
function paced<T>(source: AsyncIterable<T>, flow: Flow): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const finished = { done: true, value: undefined } as IteratorResult<T>;
  const stop = async () => {
    flow.closed = true;
    wakeFlow(flow);
    return (await iterator.return?.()) ?? finished;
  };
  const wrapper = {
    async next(): Promise<IteratorResult<T>> {
      while (!flow.closed && flow.produced - flow.consumed > HIGH_WATER_BYTES) await new Promise<void>((resolve) => (flow.wake = resolve));
      if (flow.closed) return stop();
      // Results are pulled one at a time, so the cursor reported meanwhile is this result's.
      flow.cursor = undefined;
      const result = await iterator.next();
      if (!result.done) {
        flow.produced += JSON.stringify(result.value).length;
        flow.cursors.push(flow.cursor);
      }
      return result;
    },
    return: stop,
    async throw(error: unknown) {
      await stop();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return wrapper;
    },
  };
  return wrapper as unknown as AsyncGenerator<T>;
}

const encoder = new TextEncoder();
const NEXT_FRAME = encoder.encode('event: next\n');
const isNextFrame = (chunk: Uint8Array) => chunk.byteLength >= NEXT_FRAME.byteLength && NEXT_FRAME.every((byte, i) => chunk[i] === byte);

/**
 * The `id:` line of a `next` frame: graphql-sse writes only `event:` and `data:`, one message per
 * chunk and in the order its results were pulled, so each `next` frame takes the next cursor.
 * A result without one (the error that ends a stream) gets no line: EventSource keeps the last.
 */
function withId(chunk: Uint8Array, flow: Flow): Uint8Array {
  if (!isNextFrame(chunk)) return chunk;
  const cursor = flow.cursors.shift();
  if (cursor === undefined) return chunk;
  const line = encoder.encode(`id: ${cursor}\n`);
  const framed = new Uint8Array(line.byteLength + chunk.byteLength);
  framed.set(line);
  framed.set(chunk, line.byteLength);
  return framed;
}

/** Longest Last-Event-ID read: a cursor is an event id (a UUID); anything longer is refused unread. */
const LAST_EVENT_ID_MAX = 100;

/**
 * The Last-Event-ID a reconnecting EventSource sends (an empty one is none), or the refusal of
 * one that is not a cursor this stream wrote.
 */
function lastEventId(request: Request): string | undefined | AppError {
  const value = request.headers.get('last-event-id')?.trim();
  if (!value) return undefined;
  const detail = (message: string) => validationFailed([{ field: 'Last-Event-ID', code: 'invalid_value', message }], 'invalid_request');
  if (value.length > LAST_EVENT_ID_MAX) return detail(`is longer than ${LAST_EVENT_ID_MAX} characters`);
  if (!UUID_PATTERN.test(value)) return detail('is not an event id (the id: of a frame this stream sent)');
  return value.toLowerCase();
}

/** RFC 6750 2.3: the query parameter a bearer token may travel in where no header can be sent. */
export const ACCESS_TOKEN_PARAM = 'access_token';
/** RFC 6750 2.1's b64token: a token of any other form is refused unread. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The credentials of a request to the stream endpoint, as an Authorization value, and the request
 * to carry on with. A browser's EventSource cannot send a header, so a GET may bring its token as
 * the `access_token` query parameter instead; the request then continues with the parameter
 * removed from its URL, so nothing after this (GraphQL, logs, errors) ever holds it. RFC 6750
 * allows one way per request: the header and the parameter together, or the parameter twice, is
 * refused. Other methods send the header and their parameter is ignored, as on every other path.
 */
export function streamCredentials(request: Request): { authorization: string | undefined; request: Request } | AppError {
  const authorization = request.headers.get('authorization') ?? undefined;
  if (request.method !== 'GET') return { authorization, request };
  const url = new URL(request.url);
  const tokens = url.searchParams.getAll(ACCESS_TOKEN_PARAM);
  if (tokens.length === 0) return { authorization, request };
  url.searchParams.delete(ACCESS_TOKEN_PARAM);
  // The signal too: a stream ends when its client leaves.
  const stripped = new Request(url, { method: request.method, headers: request.headers, signal: request.signal });
  const given = tokens.filter((token) => token !== '');
  // RFC 6749 3.1: a parameter sent without a value is treated as omitted.
  if (given.length === 0) return { authorization, request: stripped };
  const refuse = (message: string) =>
    new AppError('invalid_request', message, {
      details: [{ field: ACCESS_TOKEN_PARAM, code: 'invalid_value', message }],
      headers: { 'WWW-Authenticate': `Bearer realm="switchboard", error="invalid_request", error_description="${message}"` },
    });
  if (given.length > 1) return refuse('The access_token parameter is given more than once');
  if (authorization !== undefined) return refuse('Send the token one way: in the Authorization header or as the access_token parameter, not both');
  if (!B64TOKEN.test(given[0]!)) {
    return new AppError('unauthorized', 'Invalid token', { headers: { 'WWW-Authenticate': 'Bearer realm="switchboard", error="invalid_token", error_description="Invalid token"' } });
  }
  return { authorization: `Bearer ${given[0]}`, request: stripped };
}

/** The response body, counting what the socket writer reads into the stream's flow, with each `next` frame's `id:` line. */
function counted(body: ReadableStream<Uint8Array>, flow: Flow, Stream: typeof ReadableStream): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new Stream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        // Cancelled while reading: nothing more may be enqueued.
        if (flow.closed && !value) return;
        if (value) {
          flow.consumed += value.byteLength;
          wakeFlow(flow);
          controller.enqueue(withId(value, flow));
        }
        if (done) {
          flow.closed = true;
          wakeFlow(flow);
          controller.close();
        }
      },
      cancel(reason) {
        flow.closed = true;
        wakeFlow(flow);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';

/**
 * GraphQL over SSE (graphql-sse, distinct-connections mode) at `endpoint`, in the shape of
 * @graphql-yoga/plugin-graphql-sse, with the document's own errors answered as on /graphql:
 * left to graphql-sse, a syntax error or a broken limit (thrown by the parse hooks) would be a
 * 500 and a validation error "Unable to detect operation AST". Each is a JSON `{errors}` with
 * `extensions.code` and `details` and the status /graphql gives it; so are graphql-sse's own
 * refusals (a body that is not JSON, no query). Each `next` frame of a subscription carries its
 * event's id as `id:`, and a Last-Event-ID header resumes after it (an EventSource reconnecting).
 */
export function useGraphQLStream(endpoint: string, mask: (error: unknown) => GraphQLError): Plugin {
  const contexts = new WeakMap<Request, Record<string, unknown>>();
  const flows = new WeakMap<Request, Flow>();
  let handler: (request: Request, context?: SseRequestContext) => Promise<Response>;
  // yoga's classes (graphql.ts): the host's Response, Node's ReadableStream.
  let fetchAPI: { Response: typeof Response; ReadableStream: typeof ReadableStream };

  const refuse = (errors: readonly unknown[]) => {
    const masked = errors.map((e) => mask(e));
    const status = (masked[0]?.extensions?.http as { status?: number } | undefined)?.status ?? 400;
    const extra = (masked[0]?.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers;
    return [
      JSON.stringify({ errors: masked.map(clientError) }),
      { status, statusText: STATUS_CODES[status] ?? '', headers: { ...extra, 'content-type': 'application/json; charset=utf-8' } },
    ] as const;
  };

  /**
   * A query or mutation sent over the stream endpoint is one request like any on /graphql: it
   * takes its client's in-flight slot and runs under the operation deadline.
   */
  const bounded = async <T>(ctx: RequestContext, run: () => T | Promise<T>) => {
    const clientId = ctx.auth?.clientId;
    const concurrency = clientConcurrency(ctx.runtime);
    if (clientId !== undefined && !concurrency.tryAcquire(clientId)) {
      return refuse([
        new AppError('rate_limit_exceeded', `Too many requests in flight for this client: at most ${concurrency.limit} at once`, { headers: { 'Retry-After': '1' } }),
      ]);
    }
    ctx.deadline = performance.now() + ctx.runtime.config.OPERATION_TIMEOUT_MS;
    try {
      return await run();
    } finally {
      if (clientId !== undefined) concurrency.release(clientId);
    }
  };

  /** graphql-sse's own refusals carry a message only: the code their status stands for. */
  const withCodes = async (response: Response): Promise<Response> => {
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const body = (await response.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
    const code = codeByStatus[response.status] ?? 'invalid_request';
    const errors = (body.errors ?? []).map((e) => ({ ...e, extensions: { code, ...e.extensions } }));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ ...body, errors }), { status: response.status, headers });
  };

  return {
    onYogaInit({ yoga }) {
      fetchAPI = yoga.fetchAPI as unknown as typeof fetchAPI;
      handler = createHandler(
        {
          onSubscribe(req, params) {
            const enveloped = yoga.getEnveloped({ ...contexts.get(req.raw), request: req.raw, params });
            let document: DocumentNode;
            try {
              document = enveloped.parse(params.query);
            } catch (error) {
              return refuse([error]);
            }
            let errors: readonly GraphQLError[];
            try {
              errors = enveloped.validate(enveloped.schema, document);
            } catch (error) {
              // graphql-armor's depth rule throws from validation instead of reporting.
              return refuse([error]);
            }
            if (errors.length > 0) return refuse(errors);
            return Promise.resolve(enveloped.contextFactory()).then(async (contextValue) => {
              const args = { schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName };
              const operation = getOperationAST(document, params.operationName);
              if (operation?.operation !== 'subscription') return bounded(contextValue as unknown as RequestContext, () => enveloped.execute(args));
              const resumeAfter = lastEventId(req.raw);
              if (resumeAfter instanceof AppError) return refuse([resumeAfter]);
              const flow: Flow = { produced: 0, consumed: 0, closed: false, cursor: undefined, cursors: [] };
              (contextValue as unknown as RequestContext).stream = { resumeAfter, onEvent: (cursor) => (flow.cursor = cursor) };
              const result = (await enveloped.subscribe(args)) as ExecutionResult | AsyncIterable<ExecutionResult>;
              if (isAsyncIterable(result)) {
                flows.set(req.raw, flow);
                return paced(result, flow);
              }
              // A stream cap reached: refused before the stream opens, as a 429 (not an error event).
              if (result.errors?.some((e) => mask(e).extensions?.code === 'rate_limit_exceeded')) return refuse(result.errors);
              return result;
            });
          },
          onNext: (_ctx, _req, result) => withoutHttp(result as ExecutionResult),
        },
        yoga.fetchAPI,
      ) as typeof handler;
    },
    onRequest({ request, endResponse, serverContext }) {
      if (request.url.split('?', 1)[0]!.endsWith(endpoint)) {
        contexts.set(request, serverContext as Record<string, unknown>);
        return handler(request)
          .then(withCodes)
          .then((response) => {
            const flow = flows.get(request);
            if (!flow || !response.body) return response;
            return new fetchAPI.Response(counted(response.body, flow, fetchAPI.ReadableStream), {
              status: response.status,
              statusText: response.statusText,
              headers: response.headers,
            });
          })
          .then(endResponse);
      }
    },
  };
}
