import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { schema } from '../graphql/schema.js';
import { gatewayRoutes, restRoutes } from '../rest/routes.js';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { errorEnvelope, videoErrorEnvelope } from '../errors/envelope.js';
import type { Runtime } from '../runtime.js';
import { mountMetrics } from '../observability/endpoint.js';
import { httpConnectionsOpen, httpConnectionsRefused } from '../observability/metrics.js';
import { createMainApp, createVideoApp } from './app.js';
import { announcesTooLarge } from './body-limit.js';
import { answerClientErrors, answeringMalformedRequests, type ClientErrorBody } from './client-errors.js';
import type { HttpEnv } from '../web/hono-env.js';

export interface ListenerApps {
  main: Hono<HttpEnv>;
  video: Hono<HttpEnv>;
  metrics?: Hono<HttpEnv>;
}

export interface RunningServers {
  mainPort: number;
  videoPort: number;
  /** The metrics listener's port, when METRICS_PORT is set. */
  metricsPort?: number;
  /** The apps the listeners serve (their `routes` list what each mounts). */
  apps: ListenerApps;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  close(): Promise<void>;
}

/**
 * `Expect: 100-continue`: node answers "100 Continue" by itself unless the server listens for
 * `checkContinue`. A body announced over the limit gets no 100: the request goes straight to the
 * app, which answers 413, so a client that waits for the 100 never uploads it.
 */
function answerExpectContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!announcesTooLarge(req.headers['content-length'])) res.writeContinue();
    server.emit('request', req, res);
  });
}

/**
 * The edge's timeouts (src/config.ts): idle keep-alive connections last KEEP_ALIVE_TIMEOUT_MS
 * (the `Keep-Alive: timeout=` header says so); a request's headers must arrive within
 * HEADERS_TIMEOUT_MS and the whole request within REQUEST_TIMEOUT_MS, or it is answered 408 and
 * its connection closed (answerClientErrors). Neither timer runs while a connection waits idle
 * between requests, nor once a request is read (a long SSE response is not cut). Node checks them
 * every `connectionsCheckingInterval` (30 s by default: a trickling client got up to that much
 * more), here every second.
 */
const CHECK_INTERVAL_MS = 1000;
function timeouts(server: Server, config: Config): void {
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
}

const HEALTH_PATHS = new Set<string>([gatewayRoutes.healthz.path, gatewayRoutes.readyz.path]);

/**
 * The connection cap: up to MAX_CONNECTIONS open connections serve everything; the next
 * HEALTH_RESERVE_CONNECTIONS serve /healthz and /readyz only (anything else is answered 503,
 * connection closed), so an orchestrator's checks still get through while the API is saturated;
 * past both, node closes new connections unanswered. Returns the fetch that applies it.
 */
function connectionCap(server: Server, config: Config, listener: string, errorBody: ClientErrorBody, fetch: Hono<HttpEnv>['fetch']): Hono<HttpEnv>['fetch'] {
  const max = config.MAX_CONNECTIONS;
  server.maxConnections = max + config.HEALTH_RESERVE_CONNECTIONS;
  const inReserve = new WeakSet<Socket>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    httpConnectionsOpen.set({ listener }, open);
    if (open > max) inReserve.add(socket);
    socket.once('close', () => {
      open--;
      httpConnectionsOpen.set({ listener }, open);
    });
  });
  server.on('drop', () => httpConnectionsRefused.inc({ listener, reason: 'dropped' }));
  return (request, env, ...rest) => {
    const incoming = (env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined)?.incoming;
    const socket = incoming?.socket;
    if (!socket || !inReserve.has(socket)) return fetch(request, env, ...rest);
    // A reserved connection is not kept: it is for one health check at a time.
    (env as { outgoing?: ServerResponse }).outgoing?.setHeader('connection', 'close');
    if (HEALTH_PATHS.has(new URL(request.url).pathname)) return fetch(request, env, ...rest);
    httpConnectionsRefused.inc({ listener, reason: 'reserve' });
    const error = new AppError('service_unavailable', 'The server is at its connection limit: retry shortly');
    return new Response(JSON.stringify(errorBody(error)), {
      status: 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'x-request-id': randomUUID() },
    });
  };
}

function listen(app: Hono<HttpEnv>, port: number, hostname: string, config: Config, listener: string, errorBody: ClientErrorBody = errorEnvelope): Promise<Server> {
  return new Promise((resolve, reject) => {
    let capped: Hono<HttpEnv>['fetch'] = app.fetch;
    const server = serve(
      {
        fetch: (...args) => capped(...args),
        port,
        hostname,
        serverOptions: { connectionsCheckingInterval: CHECK_INTERVAL_MS },
        createServer: answeringMalformedRequests(errorBody) as never,
      },
      () => resolve(server as Server),
    ) as Server;
    capped = connectionCap(server, config, listener, errorBody, app.fetch);
    timeouts(server, config);
    answerExpectContinue(server);
    answerClientErrors(server, errorBody);
    server.once('error', reject);
  });
}

function metricsApp(runtime: Runtime): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  mountMetrics(app, runtime, gatewayRoutes.metrics.path);
  return app;
}

/** The app of each listener: the API, the video host and, with METRICS_PORT, the metrics listener. */
export function createListenerApps(runtime: Runtime): ListenerApps {
  return {
    main: createMainApp(runtime, schema, restRoutes),
    video: createVideoApp(runtime, schema),
    ...(runtime.config.METRICS_PORT === undefined ? {} : { metrics: metricsApp(runtime) }),
  };
}

export async function startServers(runtime: Runtime, ports: { main: number; video: number; host: string }): Promise<RunningServers> {
  const config = runtime.config;
  const apps = createListenerApps(runtime);
  const main = await listen(apps.main, ports.main, ports.host, config, 'main');
  const video = await listen(apps.video, ports.video, ports.host, config, 'video', videoErrorEnvelope);
  // METRICS_PORT: /metrics on a listener of its own (not on the main one).
  const metrics = apps.metrics && (await listen(apps.metrics, config.METRICS_PORT!, ports.host, config, 'metrics'));
  runtime.webhooks.start();
  const closeOne = (server: Server) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => server.closeAllConnections(), runtime.config.SHUTDOWN_GRACE_MS);
      // Keep-alive connections become idle as their requests (and ended SSE streams) finish.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearTimeout(timer);
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    });
  return {
    apps,
    mainPort: (main.address() as AddressInfo).port,
    videoPort: (video.address() as AddressInfo).port,
    ...(metrics ? { metricsPort: (metrics.address() as AddressInfo).port } : {}),
    close: async () => {
      // Open SSE streams complete first, so they do not hold the listener open for the grace period.
      runtime.events.endStreams();
      await Promise.all([closeOne(main), closeOne(video), ...(metrics ? [closeOne(metrics)] : []), runtime.webhooks.stop(runtime.config.SHUTDOWN_GRACE_MS)]);
    },
  };
}
