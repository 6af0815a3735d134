import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createSourceEventStream, getOperationAST, GraphQLError, parse, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createYoga, isAsyncIterable, processRegularResult, type GraphiQLOptions, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { useDocumentBudget, useParseDepthGuard } from '../graphql/document-budget.js';
import type { Runtime, RequestContext } from '../runtime.js';
import { appErrorToGraphQL, toAppError } from '../graphql/errors.js';
import { isRequestError, requestError, useRequestErrors } from '../graphql/request-errors.js';
import { hasOrderedRootFields } from '../graphql/ordered-root-fields.js';
import { hasVariableScalarLiterals } from '../graphql/scalar-literals.js';
import { useQueryCost } from '../graphql/query-cost.js';
import { loadTrustedDocuments, useTrustedDocuments } from '../graphql/trusted-documents.js';
import { OperationLabels, useOperationMetrics } from '../observability/graphql-metrics.js';
import { graphiqlTabs } from './graphiql-examples.js';
import { useGraphQLStream } from './graphql-stream.js';
import { mapEvents } from '../graphql/map-events.js';
import { knownDocumentAnswerer, type KnownDocumentAnswerer } from './graphql-known.js';
import { clientConcurrency, tooManyInFlight } from './client-concurrency.js';

/**
 * The request's context is yoga's server context itself. yoga's `context` option would copy it
 * into the operation's context with Object.assign, which calls its lazy getters (a pino child
 * logger on every request); the server context is copied by property descriptor
 * (@whatwg-node/server's isolateObject), so the getters stay lazy and share one logger.
 */
export type YogaServerContext = RequestContext;

// The opening tab; graphiql-examples.ts has one tab per domain.
export const graphiqlExample = graphiqlTabs[0]!.query;

/**
 * A subscription refused before its stream starts (scope, app, not_found) ends as `{errors}`;
 * graphql-sse recognizes a result only with a `data` key and would answer 400 "Unable to detect
 * operation AST" instead. With `data: null` the subscriber receives the error as one event.
 */
const subscriptionErrorsAsResults: Plugin = {
  onSubscribe: () => ({
    onSubscribeResult: ({ result, setResult }) => {
      if (!(Symbol.asyncIterator in result) && !('data' in result)) setResult({ data: null, ...result });
    },
  }),
};

/**
 * Statuses as GraphQL over HTTP gives them, for a JSON answer (application/json or
 * application/graphql-response+json). A request that is not well-formed (`malformed`: its body or
 * parameters, a mutation over GET) keeps its 4xx. Once execution ran (the result has `data`,
 * null included) it is 200 whatever the errors. Before that (the document did not parse or
 * validate, its variables were refused) it is 400 to an application/graphql-response+json client
 * and 200 to an application/json one: yoga's `spec` flag. Every error's headers (Retry-After)
 * stay, and a rate-limit refusal stays 429. The REST adapter maps the same errors to its statuses itself, from their AppError.
 */
export function useGraphQLOverHttpStatuses(malformed: WeakSet<GraphQLError>): Plugin {
  const statuses = graphqlOverHttpStatuses(malformed);
  return {
    // yoga checks every parameter's type but this one's: a name that is not a string is a
    // malformed request, not an operation the document lacks.
    onParams({ params }) {
      const name: unknown = params?.operationName;
      if (name != null && typeof name !== 'string') {
        throw new GraphQLError(`Expected "operationName" param to be a string, but given ${Array.isArray(name) ? 'array' : typeof name}.`, {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      }
    },
    onResultProcess({ result, resultProcessor, setResult }) {
      if (resultProcessor !== processRegularResult || isAsyncIterable(result) || Array.isArray(result)) return;
      setResult(statuses(result));
    },
  };
}

/** The status rules of useGraphQLOverHttpStatuses for one JSON result: the result with its errors' statuses set. */
export function graphqlOverHttpStatuses(malformed: WeakSet<GraphQLError>): (result: ExecutionResult) => ExecutionResult {
  const forHttp = (error: GraphQLError, executed: boolean): GraphQLError => {
    const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
    if (!http || malformed.has(error)) return error;
    // A rate-limit refusal (the query's cost did not fit the budget) keeps its 429 for every
    // client, as the refusal before parsing does, so retry logic sees Retry-After.
    const status = http.status === 429 ? { status: 429 } : executed ? {} : { status: http.status, spec: true };
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: error.originalError,
      extensions: { ...error.extensions, http: { headers: http.headers, ...status } },
    });
  };
  return (result) => {
    if (!result.errors?.length) return result;
    const executed = 'data' in result;
    return { ...result, errors: result.errors.map((error) => forHttp(error, executed)) };
  };
}

/**
 * Executes with graphql-jit: each document is compiled once and kept as long as yoga's parse
 * cache keeps its DocumentNode (same query text, same node object), so a hot query is compiled
 * once and a one-off one costs one compilation. Validation, the armor limits and the Pothos
 * plugins (scope checks, complexity, zod) run as before; a document graphql-jit cannot compile
 * runs on yoga's own executor.
 */
export function useCompiledExecution(): Plugin {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  const compiledFor = (args: ExecutionArgs): CompiledQuery | null => {
    // Keyed by the operation the name selects: a name the document does not define is an error
    // the executor reports, and must not become one more entry per name a client makes up.
    const operation = getOperationAST(args.document, args.operationName ?? undefined);
    if (!operation) return null;
    let byOperation = compiled.get(args.document);
    if (!byOperation) compiled.set(args.document, (byOperation = new Map()));
    const key = operation.name?.value ?? '';
    let query = byOperation.get(key);
    if (query === undefined) {
      const compilable = !hasOrderedRootFields(args.document, args.operationName) && !hasVariableScalarLiterals(args.schema, args.document);
      const result = compilable ? compileQuery(args.schema, args.document, args.operationName ?? undefined, { disablingCapturingStackErrors: true }) : null;
      query = result && isCompiledQuery(result) ? result : null;
      byOperation.set(key, query);
    }
    return query;
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const query = compiledFor(args);
      if (!query) return;
      setExecuteFn(((execArgs: ExecutionArgs) =>
        execArgs.document === args.document ? query.query(execArgs.rootValue, execArgs.contextValue, execArgs.variableValues) : executeFn(execArgs)) as typeof executeFn);
    },
    // Subscriptions over /graphql (Accept: text/event-stream) too: each event of each subscriber is
    // one execution there. On /graphql/stream useGraphQLStream replaces this with one shared
    // execution per event and document.
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const query = compiledFor(args);
      if (!query) return;
      setSubscribeFn(((subArgs: ExecutionArgs) =>
        subArgs.document === args.document ? subscribeCompiled(query, subArgs) : subscribeFn(subArgs)) as typeof subscribeFn);
    },
  };
}

/**
 * A query or mutation on /graphql that asked for an event stream (Accept: text/event-stream)
 * passes the HTTP layer without an in-flight slot or a deadline: a subscription holds its request
 * for as long as it is open, and the layer cannot tell the two apart before the document is
 * parsed. Here, the operation known, it takes both as every other query does. Executions already
 * bounded (JSON requests by app.ts, /graphql/stream's by its plugin) carry a deadline and are
 * left alone. Last in the plugin list: it wraps the compiled executor, and no plugin after it can
 * stop the execution with the slot taken.
 */
export function useStreamedOperationBounds(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as RequestContext;
      const clientId = ctx.auth?.clientId;
      if (ctx.deadline !== undefined || clientId === undefined) return;
      const concurrency = clientConcurrency(ctx.runtime);
      if (!concurrency.tryAcquire(clientId)) {
        setResultAndStopExecution({ errors: [appErrorToGraphQL(tooManyInFlight(concurrency.limit))] });
        return;
      }
      ctx.deadline = performance.now() + ctx.runtime.config.OPERATION_TIMEOUT_MS;
      setExecuteFn((async (execArgs: ExecutionArgs) => {
        try {
          return await executeFn(execArgs);
        } finally {
          concurrency.release(clientId);
        }
      }) as typeof executeFn);
    },
  };
}

/**
 * graphql-js semantics (the source stream from the root field's `subscribe`, resolved with the
 * Pothos checks; a refusal is an `{errors}` result) with each event executed by the compiled
 * query, on the variables as sent (graphql-jit's own subscribe re-coerces coerced values).
 */
async function subscribeCompiled(query: CompiledQuery, args: ExecutionArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  return mapEvents(source, (event) => query.query(event, args.contextValue, args.variableValues) as ExecutionResult | Promise<ExecutionResult>);
}


/**
 * yoga's responses made with the Response class of the moment: on the server that is
 * @hono/node-server's, whose string body the listener writes straight to the socket. yoga's own
 * default (@whatwg-node/node-fetch's) makes the listener read every JSON body back through a
 * ReadableStream reader, which costs more CPU than the rest of the response. Resolved per
 * call, because the listener installs its class when it starts, after the app is built.
 */
const HostResponse = function HostResponse(body?: BodyInit | null, init?: ResponseInit) {
  return new globalThis.Response(body, init);
} as unknown as typeof Response;

/**
 * graphql-yoga with the abuse limits composed as plugins, so each stays one concern in one
 * place: size, operation name, tokens, fields, depth, aliases and directives before validation
 * (document-budget.ts); cost, depth and breadth (the Pothos complexity plugin's computation) in
 * query-cost.ts, which also charges the cost to the rate limit, before any resolver runs.
 */
/**
 * GraphiQL bundled in the page (no CDN): works offline and behind strict egress. The bundle is
 * loaded on the first page view, not at start-up: its module holds the whole of GraphiQL as
 * strings, a large share of an idle service's heap, which an instance that never serves the
 * page need not carry.
 */
const renderBundledGraphiQL = async (options: GraphiQLOptions) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options);

/**
 * yoga's parse and validation caches, bounded by bytes as well as entries: its default holds
 * 1,024 documents whatever their size, and a parsed tree is many times the size of its text
 * (AST_BYTES_PER_CHAR errs on the large side). Validation results are kept per parsed document (a WeakMap), so they go with it, and
 * so do graphql-jit's compiled queries (useCompiledExecution).
 */
export function documentCaches(config: Pick<Config, 'GRAPHQL_DOCUMENT_CACHE_ENTRIES' | 'GRAPHQL_DOCUMENT_CACHE_BYTES'>) {
  const weight = (_value: unknown, key: string) => key.length * AST_BYTES_PER_CHAR + 1024;
  const cache = <V extends {}>(maxSize: number) =>
    new LRUCache<string, V>({ max: config.GRAPHQL_DOCUMENT_CACHE_ENTRIES, maxSize, sizeCalculation: weight, ttl: 3_600_000 });
  return {
    documentCache: cache<DocumentNode>(config.GRAPHQL_DOCUMENT_CACHE_BYTES),
    // Syntax errors keep their source text: a quarter of the budget.
    errorCache: cache<object>(Math.ceil(config.GRAPHQL_DOCUMENT_CACHE_BYTES / 4)),
  };
}
const AST_BYTES_PER_CHAR = 64;

/** The operation names of the service's own documents (GraphiQL's tabs, the REST routes'), for metric labels. */
export function ownOperationNames(documents: Iterable<string>): Set<string> {
  const names = new Set(['IntrospectionQuery']);
  for (const text of documents) {
    try {
      for (const d of parse(text).definitions) if (d.kind === 'OperationDefinition' && d.name) names.add(d.name.value);
    } catch {
      // Not ours to refuse here: a route's document is validated when it is mounted.
    }
  }
  return names;
}

export interface GraphQLServer {
  yoga: YogaServerInstance<YogaServerContext, RequestContext>;
  /** POST /graphql of a document yoga has parsed, without the Fetch adapter (graphql-known.ts). */
  answerKnown: KnownDocumentAnswerer;
}

export function createGraphQLServer(runtime: Runtime, schema: GraphQLSchema, ownDocuments: Iterable<string> = []): GraphQLServer {
  const { config, logger } = runtime;
  // yoga logs at error level every error maskError replaces, the client's own (a validation
  // error, a 409) as much as a fault. maskError below logs faults itself, with the request's
  // context; yoga's line for an error it has seen goes to debug.
  const masked = new WeakSet<object>();
  // yoga's own refusals of the request (its body, its parameters, a mutation over GET) as masked:
  // not a well-formed GraphQL request, so their 4xx stands whatever the client accepts.
  const malformed = new WeakSet<GraphQLError>();
  const seenByMaskError = (args: unknown[]) => args.length === 1 && typeof args[0] === 'object' && args[0] !== null && masked.has(args[0]);
  /** Every error a client is told, on /graphql and /graphql/stream alike. */
  const maskError = (error: unknown): GraphQLError => {
    if (typeof error === 'object' && error !== null) masked.add(error);
    // The document's own errors (syntax, validation, limits, arguments and variables that
    // do not coerce): the REST error type, details, 400, as the REST paths answer them.
    if (error instanceof GraphQLError && isRequestError(error)) {
      const mapped = appErrorToGraphQL(requestError(schema, error), error);
      if (error.extensions?.code === 'BAD_REQUEST') malformed.add(mapped);
      return mapped;
    }
    const appError = toAppError(error);
    if (appError) {
      if (appError.type === 'server_error') logger.error({ err: appError }, 'server error in GraphQL');
      return appErrorToGraphQL(appError, error instanceof GraphQLError ? error : undefined);
    }
    // Parse and validation errors (no original error) are the client's and safe to show.
    if (error instanceof GraphQLError && !error.originalError) return error;
    logger.error({ err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'unexpected error in GraphQL');
    return new GraphQLError('Internal server error', {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: 'server_error' },
    });
  };
  const caches = documentCaches(config);
  const yoga = createYoga<YogaServerContext, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // The listener's own 1 MiB limit (tooLarge in app.ts) runs before yoga. yoga's 25 MB one
    // would pipe every body through a TransformStream into a new Request: cost and no gain.
    maxRequestBodySize: false,
    // Streams (SSE, incremental delivery) in Node's own ReadableStream: Node's Response takes
    // @whatwg-node's for an async iterable, and closes it again after a client has left, an
    // uncaught exception that ends the process.
    fetchAPI: { Response: HostResponse, ReadableStream: globalThis.ReadableStream },
    // CORS is the gateway's (CORS_ORIGINS, app.ts): yoga's default echoed any Origin on /graphql.
    cors: false,
    // No uploads in this schema: one request parser fewer on every request.
    multipart: false,
    renderGraphiQL: renderBundledGraphiQL,
    logging: {
      debug: (...args) => logger.debug({ yoga: args }, 'yoga'),
      info: (...args) => logger.info({ yoga: args }, 'yoga'),
      warn: (...args) => logger.warn({ yoga: args }, 'yoga'),
      error: (...args) => (seenByMaskError(args) ? logger.debug({ yoga: args }, 'yoga: error masked') : logger.error({ yoga: args }, 'yoga')),
    },
    graphiql: {
      title: 'Switchboard GraphQL',
      defaultQuery: graphiqlExample,
      defaultTabs: graphiqlTabs,
      headers: JSON.stringify({ Authorization: 'Bearer <access_token>' }),
      shouldPersistHeaders: true,
    },
    plugins: [
      // Subscriptions over graphql-sse, distinct-connections mode, at /graphql/stream: one plain SSE
      // response per subscription, which proxies pass through.
      useGraphQLStream('/graphql/stream', maskError),
      useGraphQLOverHttpStatuses(malformed),
      subscriptionErrorsAsResults,
      useOperationMetrics(new OperationLabels(ownOperationNames([...graphiqlTabs.map((t) => t.query), ...ownDocuments]), config.GRAPHQL_METRIC_OPERATION_NAMES)),
      // With a manifest (GRAPHQL_TRUSTED_DOCUMENTS): documents named by id, and only they in the strict mode.
      ...(config.GRAPHQL_TRUSTED_DOCUMENTS ? useTrustedDocuments(loadTrustedDocuments(config.GRAPHQL_TRUSTED_DOCUMENTS), config.GRAPHQL_TRUSTED_DOCUMENTS_MODE) : []),
      // Bytes and operation name before parsing, tokens while parsing, the counts before validating.
      useDocumentBudget({
        bytes: config.GRAPHQL_MAX_DOCUMENT_BYTES,
        operationName: config.GRAPHQL_MAX_OPERATION_NAME,
        fields: config.GRAPHQL_MAX_FIELDS,
        selections: config.GRAPHQL_MAX_SELECTIONS,
        depth: config.GRAPHQL_MAX_DEPTH,
        aliases: config.GRAPHQL_MAX_ALIASES,
        directives: config.GRAPHQL_MAX_DIRECTIVES,
      }),
      maxTokensPlugin({ n: config.GRAPHQL_MAX_TOKENS }),
      useParseDepthGuard(),
      // Measured, refused over the maximum or the client's budget, and charged before any resolver runs.
      useQueryCost(),
      useCompiledExecution(),
      useRequestErrors(schema),
      useStreamedOperationBounds(),
    ],
    maskedErrors: { maskError },
    parserAndValidationCache: caches,
  });
  const known = knownDocumentAnswerer({ yoga, documents: caches.documentCache, statuses: graphqlOverHttpStatuses(malformed) });
  // A trusted-documents manifest decides, in its params hook, what a text may run: yoga's whole way.
  return { yoga, answerKnown: config.GRAPHQL_TRUSTED_DOCUMENTS ? (c, viaYoga) => viaYoga(c.req.raw) : known };
}
