import type { GraphQLSchema } from 'graphql';
import { cors } from 'hono/cors';
import { Hono, type MiddlewareHandler } from 'hono';
import { authenticate } from '../auth/access-tokens.js';
import { AppError } from '../errors/app-error.js';
import { errorResponse, graphqlErrorBody, methodNotAllowed, serverError, videoErrorEnvelope } from '../errors/envelope.js';
import { toAppError } from '../graphql/errors.js';
import { mountLookupRoutes, mountRoutes, type RestRoute } from '../rest/adapter.js';
import { createRequestContext, type Runtime } from '../runtime.js';
import { gatewayRoutes, tokenRoute, V1_PREFIX, videoHostRoutes } from '../rest/routes.js';
import { mountMetrics } from '../observability/endpoint.js';
import { httpMetrics } from '../observability/http-metrics.js';
import { rateLimitRejections } from '../observability/metrics.js';
import { tooLarge } from './body-limit.js';
import { compressAsset, serveAsset, type CompressedAsset } from './compressed-asset.js';
import { clientConcurrency, tooManyInFlight } from './client-concurrency.js';
import { mountDocs } from './docs.js';
import { mountStandardOAuth } from './oauth.js';
import { createGraphQLServer } from './graphql.js';
import { graphqlWithKey } from './graphql-idempotency.js';
import { streamCredentials as readStreamCredentials } from './graphql-stream.js';
import type { HttpEnv } from '../web/hono-env.js';
import { requestIdOf } from '../web/request-id.js';

/** Request id, context and access log: the first middleware of both listeners. */
export function requestScope(runtime: Runtime): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const requestId = requestIdOf(c.req.header('x-request-id'));
    const ctx = createRequestContext(runtime, requestId);
    c.set('requestId', requestId);
    c.set('requestContext', ctx);
    const started = performance.now();
    await next();
    // The request id and, once authenticated, the rate-limit window: unless the route wrote them.
    if (!ctx.responseHeadersWritten) for (const [name, value] of Object.entries(ctx.responseHeaders)) c.res.headers.set(name, value);
    // The runtime's logger with the id as a field: the same line as the request's child logger
    // writes, without making one for a request that logged nothing else.
    if (runtime.logger.isLevelEnabled('info')) {
      runtime.logger.info(
        { requestId, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - started) * 10) / 10, client: ctx.auth?.clientId },
        'request',
      );
    }
  };
}

/** Maps any thrown error to the error envelope; unexpected ones are logged and say nothing of internals. */
export function errorHandler(runtime: Runtime) {
  return (error: Error, c: import('hono').Context<HttpEnv>) => {
    const appError = toAppError(error);
    if (appError && appError.type !== 'server_error') return errorResponse(appError, c.get('requestId'), runtime.clock);
    runtime.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error');
    return errorResponse(serverError(), c.get('requestId'), runtime.clock);
  };
}

/** How a listener writes an error it answers itself (before any route runs). */
type ErrorShape = (error: AppError, c: import('hono').Context<HttpEnv>) => Response;

const restShape: ErrorShape = (error, c) => errorResponse(error, c.get('requestId'), c.get('requestContext')?.runtime.clock);
const graphqlShape: ErrorShape = (error, c) => c.json(graphqlErrorBody(error), error.status as 401, error.headers);
const videoShape: ErrorShape = (error, c) =>
  c.json(videoErrorEnvelope(error), error.status as 401, {
    ...error.headers,
    'X-Request-Id': c.get('requestId'),
  });

/**
 * RFC 6750 3: a request that sent no bearer token is told only the scheme; one whose token was
 * refused is told `invalid_token` and why (the messages are fixed strings, no quote in them).
 */
function bearerChallenge(result: { message: string; error?: 'invalid_token' }): string {
  const realm = 'Bearer realm="switchboard"';
  return result.error ? `${realm}, error="${result.error}", error_description="${result.message.replace(/["\\]/g, '')}"` : realm;
}

/** A request's Authorization value (the bearer token's one way in but on the stream), or why it is refused. */
type Credentials = (c: import('hono').Context<HttpEnv>) => string | undefined | AppError;

/**
 * /graphql/stream: the header, or on a GET the access_token query parameter, which leaves the
 * request's URL here (streamCredentials).
 */
const streamCredentials: Credentials = (c) => {
  const read = readStreamCredentials(c.req.raw);
  if (read instanceof AppError) return read;
  c.req.raw = read.request;
  return read.authorization;
};

/**
 * Every answer of the stream endpoint: a URL that may hold a token is neither stored by a cache
 * (its answer holds the events) nor sent on as a Referer by a page that got it.
 */
const streamHeaders: MiddlewareHandler<HttpEnv> = async (c, next) => {
  await next();
  c.res.headers.set('Cache-Control', 'no-store');
  c.res.headers.set('Referrer-Policy', 'no-referrer');
};

/**
 * Bearer authentication then rate limiting, for every authenticated request, REST, GraphQL and
 * the video host alike; `shape` writes 401 and 429 in the
 * listener's own error format.
 */
function requireAuth(
  runtime: Runtime,
  shape: ErrorShape,
  listener: 'rest' | 'graphql' | 'video',
  credentials: Credentials = (c) => c.req.header('authorization'),
): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const ctx = c.get('requestContext');
    const presented = credentials(c);
    if (presented instanceof AppError) return shape(presented, c);
    let result: Awaited<ReturnType<typeof authenticate>>;
    try {
      result = await authenticate(runtime, presented);
    } catch (error) {
      // The token check's own failure (the database away: 503) in the listener's format, as its
      // 401s are; a fault is left to the listener's 500.
      const appError = toAppError(error);
      if (!appError || appError.type === 'server_error') throw error;
      return shape(appError, c);
    }
    if (!result.ok) {
      return shape(new AppError('unauthorized', result.message, { headers: { 'WWW-Authenticate': bearerChallenge(result) } }), c);
    }
    ctx.auth = result.auth;
    const { clientId } = result.auth;
    // A stream holds its request for as long as it is open: streams have their own caps and no deadline.
    const stream = isStream(c);
    const concurrency = stream ? undefined : clientConcurrency(runtime);
    if (concurrency && !concurrency.tryAcquire(clientId)) {
      ctx.logger.info({ client: clientId, limit: concurrency.limit }, 'concurrent request limit reached');
      rateLimitRejections.inc({ listener });
      return shape(tooManyInFlight(concurrency.limit), c);
    }
    try {
      const decision = await runtime.rateLimits.consume(clientId, result.quota);
      if (!decision.allowed) {
        ctx.logger.info({ client: clientId }, 'rate limit exceeded');
        rateLimitRejections.inc({ listener });
        return shape(new AppError('rate_limit_exceeded', 'Rate limit exceeded', { headers: decision.headers }), c);
      }
      // On every response from here on (requestScope adds them where no route did).
      Object.assign(ctx.responseHeaders, decision.headers);
      ctx.rateLimit = { clientId, quota: result.quota, status: decision.status };
      if (!stream) ctx.deadline = performance.now() + runtime.config.OPERATION_TIMEOUT_MS;
      await next();
    } finally {
      concurrency?.release(clientId);
    }
  };
}

/**
 * GraphQL subscriptions: /graphql/stream (whose queries and mutations take their slot and deadline
 * in the stream plugin), or /graphql where an event stream is the first answer the client
 * accepts. yoga answers the first listed type it can, so `application/json, text/event-stream`
 * is an ordinary JSON request and is counted like one.
 */
const answerTypes = new Set(['application/graphql-response+json', 'application/json', 'text/event-stream', 'multipart/mixed', '*/*', 'application/*', 'text/*', 'multipart/*']);
const isStream = (c: import('hono').Context<HttpEnv>) => {
  if (c.req.path === gatewayRoutes.graphqlStream.path) return true;
  if (c.req.path !== gatewayRoutes.graphql.path) return false;
  const first = (c.req.header('accept') ?? '')
    .split(',', 32)
    .map((part) => part.split(';', 1)[0]!.trim().toLowerCase())
    .find((type) => answerTypes.has(type));
  return first === 'text/event-stream';
};


/** GraphiQL in a browser is served without a token; every operation needs one. */
/**
 * GraphQL over GET carries `variables` and `extensions` as JSON in the query string; yoga's GET
 * parser let a JSON syntax error through as a 500. Malformed JSON there is a 400, as in a POST body.
 */
const getParamsAreJson: MiddlewareHandler<HttpEnv> = async (c, next) => {
  if (c.req.method === 'GET') {
    for (const name of ['variables', 'extensions']) {
      const value = c.req.query(name);
      if (value === undefined || value === '') continue;
      try {
        JSON.parse(value);
      } catch {
        return graphqlShape(
          new AppError('invalid_request', `The ${name} parameter is not valid JSON`, { details: [{ field: name, code: 'invalid_format', message: 'must be JSON' }] }),
          c,
        );
      }
    }
  }
  return next();
};

const isGraphiQLPage = (c: import('hono').Context<HttpEnv>) =>
  c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html') && !new URL(c.req.url).searchParams.has('query');

/**
 * `/healthz` (the process is up) and `/readyz` (the database answers) on both
 * listeners; `extra` joins both bodies. A failed readiness check logs the driver's error.
 */
function mountHealth(app: Hono<HttpEnv>, runtime: Runtime, extra: Record<string, string> = {}): void {
  const { healthz, readyz } = gatewayRoutes;
  app.get(healthz.path, (c) => c.json({ status: 'ok' }));
  app.get(readyz.path, async (c) => {
    try {
      await runtime.database.ping();
      return c.json({ status: 'ready', ...extra });
    } catch (error) {
      runtime.logger.warn({ err: error }, 'readiness check failed: the database did not answer');
      return c.json({ status: 'unavailable', ...extra }, 503);
    }
  });
  app.all(healthz.path, methodNotAllowed(healthz.methods));
  app.all(readyz.path, methodNotAllowed(readyz.methods));
}

export function createMainApp(runtime: Runtime, schema: GraphQLSchema, routes: readonly RestRoute[]): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const { yoga, answerKnown } = createGraphQLServer(runtime, schema, routes.map((r) => r.document));
  app.use('*', requestScope(runtime));
  app.use('*', httpMetrics('main'));
  app.onError(errorHandler(runtime));
  app.notFound(() => {
    throw new AppError('not_found', 'No such path');
  });
  // Closed by default: no Access-Control-* header unless CORS_ORIGINS names the origin.
  const origins = runtime.config.CORS_ORIGINS;
  if (origins.length > 0) {
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'Last-Event-ID'],
        exposeHeaders: ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window', 'Retry-After', 'Idempotent-Replayed'],
        maxAge: 600,
      }),
    );
  }

  mountHealth(app, runtime, { database: runtime.database.kind });
  const { jwks, metrics, graphql, graphqlStream } = gatewayRoutes;
  app.get(jwks.path, (c) => c.json(runtime.keys.jwks));
  app.all(jwks.path, methodNotAllowed(jwks.methods));
  mountStandardOAuth(app, runtime);
  if (metrics.mountedWhen('api', runtime.config)) mountMetrics(app, runtime, metrics.path);

  // The method first (405 with or without a token), then the size, the token, and for a GET the
  // JSON of its query parameters.
  const graphqlAuth = requireAuth(runtime, graphqlShape, 'graphql');
  const execute = async (c: import('hono').Context<HttpEnv>) => {
    const viaYoga = async (request: Request) => yoga.fetch(request, c.get('requestContext'));
    // An event stream (the stream path, or Accept asking for one first) is yoga's to answer.
    const run = (request: Request) => (request === c.req.raw && !isStream(c) ? answerKnown(c, viaYoga) : viaYoga(request));
    const response = await graphqlWithKey(c, schema, run, (error) => graphqlShape(error, c));
    // yoga answers a POST body it has no parser for (text/plain, say) with a bare 415: give it the
    // envelope every other refusal has.
    if (response.status === 415) return graphqlShape(new AppError('unsupported_media_type', 'Send the operation as JSON: Content-Type: application/json'), c);
    // yoga's bare 406 (a subscription asked for with `Accept: application/json`, say): say why.
    if (response.status === 406) {
      return graphqlShape(
        new AppError(
          'invalid_request',
          'The Accept header allows no type this operation can be answered in: a query or mutation as application/json or application/graphql-response+json, a subscription as text/event-stream (or over /graphql/stream)',
          { status: 406 },
        ),
        c,
      );
    }
    return response;
  };
  // GraphiQL's page (megabytes: GraphiQL is bundled in it) is rendered and compressed once, then
  // served from memory by ETag, so the open page costs a copy, not a render, per request.
  let graphiqlPage: Promise<CompressedAsset> | undefined;
  const graphiql = async (c: import('hono').Context<HttpEnv>) => {
    graphiqlPage ??= (async () => {
      const rendered = await yoga.fetch(new Request(new URL(graphql.path, c.req.url), { headers: { accept: 'text/html' } }), c.get('requestContext'));
      if (!rendered.ok) throw new Error(`GraphiQL page render failed: ${rendered.status}`);
      return compressAsset(await rendered.text(), rendered.headers.get('content-type') ?? 'text/html; charset=utf-8');
    })();
    try {
      return serveAsset(c, await graphiqlPage, 'no-cache');
    } catch (error) {
      graphiqlPage = undefined;
      throw error;
    }
  };
  app.on([...graphql.methods], graphql.path, tooLarge, async (c, next) => (isGraphiQLPage(c) ? graphiql(c) : graphqlAuth(c, next)), getParamsAreJson, execute);
  app.all(graphql.path, methodNotAllowed(graphql.methods));
  // graphql-sse, distinct-connections mode: the token is checked on connect,
  // scopes and app access when the subscription starts.
  app.use(graphqlStream.path, streamHeaders);
  app.on([...graphqlStream.methods], graphqlStream.path, tooLarge, requireAuth(runtime, graphqlShape, 'graphql', streamCredentials), getParamsAreJson, execute);
  app.all(graphqlStream.path, methodNotAllowed(graphqlStream.methods));

  const v1 = new Hono<HttpEnv>();
  v1.use('*', tooLarge);
  v1.post(tokenRoute.path, tokenRoute.handler);
  v1.all(tokenRoute.path, methodNotAllowed([tokenRoute.method]));
  mountDocs(app, v1, runtime, schema, routes);
  mountRoutes(v1, schema, routes, requireAuth(runtime, restShape, 'rest'));
  app.route(V1_PREFIX, v1);
  return app;
}

/** The video lookup host ({video_url}/api/calls/{callId}); its route runs through the schema like v1's. */
export function createVideoApp(runtime: Runtime, schema: GraphQLSchema): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use('*', requestScope(runtime));
  app.use('*', httpMetrics('video'));
  app.onError((error, c) => {
    const appError = toAppError(error);
    if (!appError || appError.type === 'server_error') runtime.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error on video host');
    return videoShape(appError && appError.type !== 'server_error' ? appError : serverError(), c);
  });
  app.notFound(() => {
    throw new AppError('not_found', 'No such path');
  });
  mountHealth(app, runtime);
  app.use('/api/*', tooLarge);
  // Authentication is the route's own guard, as on the main host: an unknown path is a 404 and
  // another method a 405 with or without a token.
  mountLookupRoutes(app, schema, videoHostRoutes, 'Video call', requireAuth(runtime, videoShape, 'video'));
  return app;
}
