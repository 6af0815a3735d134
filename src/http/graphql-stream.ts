import { STATUS_CODES } from 'node:http';
import { createSourceEventStream, execute, getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { createHandler, type Handler } from 'graphql-sse';
import type { Plugin } from 'graphql-yoga';
import { AppError, validationFailed } from '../errors/app-error.js';
import { UUID_PATTERN } from '../graphql/builder.js';
import type { RequestContext } from '../runtime.js';
import { clientConcurrency, tooManyInFlight } from './client-concurrency.js';
import { mapEvents } from '../graphql/map-events.js';

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

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';

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

const EVENT_STREAM = 'text/event-stream';

/**
 * Whether an Accept header admits an event stream: absent, or its most specific range that
 * matches (`text/event-stream`, then `text/*`, then `*\/*`) has a quality above 0 (RFC 9110 12.5.1).
 */
export function acceptsEventStream(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  const quality = new Map<string, number>();
  for (const item of accept.split(',')) {
    const [range = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.replace(/\s/g, '').startsWith('q='));
    quality.set(range, q === undefined ? 1 : Number(q.replace(/\s/g, '').slice(2)) || 0);
  }
  const q = quality.get(EVENT_STREAM) ?? quality.get('text/*') ?? quality.get('*/*');
  return q !== undefined && q > 0;
}

/** A result's JSON length, measured once per result object: a shared one is handed to every stream that shares it. */
const resultSizes = new WeakMap<object, number>();
function resultSize(value: unknown): number {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value).length;
  let size = resultSizes.get(value);
  if (size === undefined) resultSizes.set(value, (size = JSON.stringify(value).length));
  return size;
}

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
        flow.produced += resultSize(result.value);
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

/**
 * Distinct executions (document, operation, variables) kept per event: past it a subscriber runs
 * its own, so subscribers with one-off variables cannot grow an event's entry without bound.
 */
const SHARED_EXECUTIONS_PER_EVENT = 64;

/** A shared execution's result, and whether it read nothing of its subscriber's context (so it is every sharer's). */
interface SharedOutcome {
  result: ExecutionResult | undefined;
  shareable: boolean;
}

/**
 * Executions by event, then by document, operation and variables: held while the event is (in a
 * stream's queue, being fanned out) and collected with it, so at most one fan-out's worth lives.
 */
const executionsByEvent = new WeakMap<object, Map<string, Promise<SharedOutcome>>>();

/**
 * What resolvers may read of the context and still be shared: the fields in the execution key
 * (the root field's complexity check reads queryCost and ownDocument, the deadline wrapper
 * deadline), and the runtime, one per process (events of two runtimes are never the same object).
 */
const KEYED_CONTEXT_KEYS = ['deadline', 'queryCost', 'ownDocument'] as const;
const SHARED_CONTEXT_KEYS = new Set<PropertyKey>([...KEYED_CONTEXT_KEYS, 'runtime']);

/** The context seen through a proxy that notes any use beyond SHARED_CONTEXT_KEYS. */
function tracked(context: object): { proxy: object; touched: () => boolean } {
  let touched = false;
  const touch = () => (touched = true);
  const proxy = new Proxy(context, {
    get(target, key) {
      if (!SHARED_CONTEXT_KEYS.has(key)) touch();
      return Reflect.get(target, key, target);
    },
    set: (target, key, value) => (touch(), Reflect.set(target, key, value, target)),
    has: (target, key) => (touch(), Reflect.has(target, key)),
    deleteProperty: (target, key) => (touch(), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, descriptor) => (touch(), Reflect.defineProperty(target, key, descriptor)),
    ownKeys: (target) => (touch(), Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (target, key) => (touch(), Reflect.getOwnPropertyDescriptor(target, key)),
  });
  return { proxy, touched: () => touched };
}

const documentIds = new WeakMap<DocumentNode, number>();
let lastDocumentId = 0;

/**
 * What makes two subscribers' executions of one event the same: the document (yoga's parse cache
 * hands out one node per text), operation, variables, and the context fields resolvers read.
 */
function executionKey(args: ExecutionArgs): string {
  let id = documentIds.get(args.document);
  if (id === undefined) documentIds.set(args.document, (id = ++lastDocumentId));
  const context = args.contextValue as Record<string, unknown>;
  const keyed = KEYED_CONTEXT_KEYS.map((key) => context[key]);
  return `${id}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${JSON.stringify(keyed)}`;
}

/**
 * One subscriber's result for a source event. The subscription document runs once per event and
 * key for every stream that shares them: the event is the same object for every stream (one row
 * per notification), the selection and arguments come from the key, and authorization happened
 * at subscribe time. The first execution runs on its own subscriber's context seen through
 * `tracked`; if any resolver used more of it than SHARED_CONTEXT_KEYS, its result stays that
 * subscriber's and every other one executes its own. So does an event no other stream receives
 * (a replayed row, the error that ends a lagging stream), at the cost of one map entry.
 */
function executeShared(event: unknown, key: string, args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
  const own = () => execute({ ...args, rootValue: event });
  if (typeof event !== 'object' || event === null) return own();
  let executions = executionsByEvent.get(event);
  const shared = executions?.get(key);
  if (shared) return shared.then((outcome) => (outcome.shareable ? outcome.result! : own()));
  if (!executions) executionsByEvent.set(event, (executions = new Map()));
  if (executions.size >= SHARED_EXECUTIONS_PER_EVENT) return own();
  const context = tracked(args.contextValue as object);
  const running = Promise.resolve().then(() => execute({ ...args, rootValue: event, contextValue: context.proxy }));
  executions.set(
    key,
    running.then(
      (result) => ({ result, shareable: !context.touched() }),
      () => ({ result: undefined, shareable: false }),
    ),
  );
  return running;
}


/** graphql-js's subscribe (the source stream from the root field's `subscribe`), each event's result shared as executeShared allows. */
async function subscribeShared(args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const key = executionKey(args);
  return mapEvents(source, (event) => executeShared(event, key, args));
}

const NEXT_FRAME = 'event: next\n';

/**
 * A message of graphql-sse as bytes, with the `id:` line of a `next` frame: graphql-sse writes only
 * `event:` and `data:`, one message per chunk and in the order its results were pulled, so each
 * `next` frame takes the next cursor. A result without one (the error that ends a stream) gets no
 * line: EventSource keeps the last. The flow counts the message as read by the socket writer.
 */
function frame(message: string, flow: Flow | undefined): Uint8Array {
  const cursor = flow && message.startsWith(NEXT_FRAME) ? flow.cursors.shift() : undefined;
  // Buffer.from: small strings are copied into Node's shared pool, not one allocation each.
  const bytes = Buffer.from(cursor === undefined ? message : `id: ${cursor}\n${message}`);
  if (flow) {
    flow.consumed += cursor === undefined ? bytes.byteLength : bytes.byteLength - (cursor.length + 5);
    wakeFlow(flow);
  }
  return bytes;
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

/**
 * A stream's response body: graphql-sse's messages as framed bytes, pulled only when the socket
 * writer reads (what graphql-sse/lib/use/fetch does, in one stream instead of a second one on top
 * of its own). Cancelled (the writer stops) or aborted (the client left), the messages end.
 */
function eventStream(messages: AsyncGenerator<string, void, undefined>, request: Request, flow: Flow | undefined, Stream: typeof ReadableStream): ReadableStream<Uint8Array> {
  let cancelled = false;
  const stream = new Stream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await messages.next();
        // Cancelled while reading: the reader is gone, nothing more may be enqueued or closed. A
        // stream ended from this side (shutdown, a revoked token) still sends its last frames and
        // then ends the response.
        if (cancelled) return;
        if (value != null) controller.enqueue(frame(value, flow));
        if (done) {
          if (flow) {
            flow.closed = true;
            wakeFlow(flow);
          }
          controller.close();
        }
      },
      async cancel(reason) {
        cancelled = true;
        if (flow) {
          flow.closed = true;
          wakeFlow(flow);
        }
        await messages.return(reason);
      },
    },
    { highWaterMark: 0 },
  );
  if (request.signal.aborted) void messages.return(undefined);
  else request.signal.addEventListener('abort', () => void (cancelled || messages.return(undefined)));
  return stream;
}

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
  // The contexts of this endpoint's subscriptions, whose events subscribeShared executes.
  const streamContexts = new WeakSet<object>();
  /**
   * Last in the plugin list, so its subscribe function is the one that runs: after the compiled
   * execution's (graphql.ts), whose per-subscriber execution of every event it replaces here.
   */
  const sharedExecution: Plugin = {
    onSubscribe({ args, setSubscribeFn }) {
      if (streamContexts.has(args.contextValue as object)) setSubscribeFn(subscribeShared as unknown as Parameters<typeof setSubscribeFn>[0]);
    },
  };
  const flows = new WeakMap<Request, Flow>();
  let handler: Handler<Request>;
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
      return refuse([tooManyInFlight(concurrency.limit)]);
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
    onPluginInit({ plugins }) {
      plugins.push(sharedExecution);
    },
    onYogaInit({ yoga }) {
      fetchAPI = yoga.fetchAPI as unknown as typeof fetchAPI;
      handler = createHandler<Request>({
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
            streamContexts.add(contextValue as object);
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
      });
    },
    onRequest({ request, endResponse, serverContext }) {
      if (request.url.split('?', 1)[0]!.endsWith(endpoint)) {
        contexts.set(request, serverContext as Record<string, unknown>);
        const accept = request.headers.get('accept');
        if (accept !== EVENT_STREAM && !acceptsEventStream(accept)) {
          const refusal = JSON.stringify({ errors: [{ message: `${endpoint} answers with an event stream: send Accept: ${EVENT_STREAM}` }] });
          return withCodes(new fetchAPI.Response(refusal, { status: 406, headers: { 'content-type': 'application/json; charset=utf-8' } })).then(endResponse);
        }
        // graphql-sse takes a request for its distinct-connections mode only when Accept is exactly
        // text/event-stream (anything else means the single-connection mode this service does not
        // serve, answered "Stream not found"): an Accept that admits it is passed on as that.
        const headers = accept === EVENT_STREAM ? request.headers : new Headers(request.headers);
        if (headers !== request.headers) headers.set('accept', EVENT_STREAM);
        return handler({ method: request.method, url: request.url, headers, body: () => request.text(), raw: request, context: undefined })
          .then(([body, init]) =>
            !body || typeof body === 'string'
              ? new fetchAPI.Response(body, init)
              : new fetchAPI.Response(eventStream(body, request, flows.get(request), fetchAPI.ReadableStream), init),
          )
          .then(withCodes)
          .then(endResponse);
      }
    },
  };
}
