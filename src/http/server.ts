import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { schema } from '../graphql/schema.js';
import { restRoutes } from '../rest/routes.js';
import type { Runtime } from '../runtime.js';
import { mountMetrics } from '../observability/endpoint.js';
import { createMainApp, createVideoApp } from './app.js';
import { announcesTooLarge } from './body-limit.js';
import { answerClientErrors, restErrorBody, videoErrorBody, type ClientErrorBody } from './client-errors.js';
import type { HttpEnv } from './types.js';

export interface RunningServers {
  mainPort: number;
  videoPort: number;
  /** The metrics listener's port, when METRICS_PORT is set. */
  metricsPort?: number;
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
 * Idle keep-alive connections last KEEP_ALIVE_TIMEOUT_MS (the `Keep-Alive: timeout=` header says
 * so); the time allowed for a request's headers stays a little longer, so a connection is never
 * cut by that timer while it is still within its keep-alive time (the usual advice behind a load
 * balancer). Shutdown closes idle connections at once, whatever this is.
 */
function keepAlive(server: Server, keepAliveMs: number): void {
  server.keepAliveTimeout = keepAliveMs;
  server.headersTimeout = Math.max(server.headersTimeout, keepAliveMs + 1000);
}

function listen(app: Hono<HttpEnv>, port: number, hostname: string, keepAliveMs: number, errorBody: ClientErrorBody = restErrorBody): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, () => resolve(server as Server)) as Server;
    keepAlive(server, keepAliveMs);
    answerExpectContinue(server);
    answerClientErrors(server, errorBody);
    server.once('error', reject);
  });
}

function metricsApp(runtime: Runtime): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  mountMetrics(app, runtime);
  return app;
}

export async function startServers(runtime: Runtime, ports: { main: number; video: number; host: string }): Promise<RunningServers> {
  const keepAliveMs = runtime.config.KEEP_ALIVE_TIMEOUT_MS;
  const main = await listen(createMainApp(runtime, schema, restRoutes), ports.main, ports.host, keepAliveMs);
  const video = await listen(createVideoApp(runtime, schema), ports.video, ports.host, keepAliveMs, videoErrorBody);
  // METRICS_PORT: /metrics on a listener of its own (not on the main one).
  const metrics = runtime.config.METRICS_PORT === undefined ? undefined : await listen(metricsApp(runtime), runtime.config.METRICS_PORT, ports.host, keepAliveMs);
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
    mainPort: (main.address() as AddressInfo).port,
    videoPort: (video.address() as AddressInfo).port,
    ...(metrics ? { metricsPort: (metrics.address() as AddressInfo).port } : {}),
    close: async () => {
      // Open SSE streams complete first, so they do not hold the listener open for the grace period.
      runtime.timeline.endStreams();
      await Promise.all([closeOne(main), closeOne(video), ...(metrics ? [closeOne(metrics)] : []), runtime.webhooks.stop(runtime.config.SHUTDOWN_GRACE_MS)]);
    },
  };
}
