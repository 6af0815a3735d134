import { analyticsRoutes } from '../analytics/rest.js';
import { revokeRoute } from '../auth/rest.js';
import type { Config } from '../config.js';
import { eventRoutes } from '../events/rest.js';
import { schedulingRoutes } from '../scheduling/rest.js';
import { sendRoutes } from '../sends/rest.js';
import { videoCallLookupRoute } from '../video/rest.js';
import type { RestRoute } from './adapter.js';
import { tokenHandler } from './token-route.js';

// Every route of every listener, in one place: the API listener (PORT), the video host
// (VIDEO_PORT) and, with METRICS_PORT, the metrics listener. `routeTable()` lists them all;
// test/architecture/routes.test.ts checks it against what the listeners mount. A known path asked
// with another method is a 405 that names the methods listed here.

/** The v1 paths that run through the schema, by the domain file that defines each list. */
const restSources: readonly (readonly [file: string, routes: readonly RestRoute[]])[] = [
  ['src/auth/rest.ts', [revokeRoute]],
  ['src/analytics/rest.ts', analyticsRoutes],
  ['src/events/rest.ts', eventRoutes],
  ['src/scheduling/rest.ts', schedulingRoutes],
  ['src/sends/rest.ts', sendRoutes],
];

/** Every v1 path that runs through the schema; each domain contributes its own list. */
export const restRoutes: readonly RestRoute[] = restSources.flatMap(([, routes]) => routes);

/** Every path of the video host ({video_url}/api/...), answered in its own envelope. */
export const videoHostRoutes: readonly RestRoute[] = [videoCallLookupRoute];

/**
 * The one v1 path outside the schema: the token endpoint authenticates the client itself, before
 * any bearer context exists.
 */
export const tokenRoute = { method: 'POST', path: '/oauth/token', handler: tokenHandler } as const;

/** Where REST paths are mounted on the API listener. */
export const V1_PREFIX = '/api/v1';

export type Listener = 'api' | 'video' | 'metrics';

/**
 * A route the gateway answers itself, not through the schema. The listener mounts it by its name
 * in `gatewayRoutes` (src/http/ holds the handlers: this module imports no listener).
 */
export interface GatewayRoute {
  readonly methods: readonly ('GET' | 'POST')[];
  /** The full path on the listener. */
  readonly path: string;
  readonly listeners: readonly Listener[];
  readonly purpose: string;
  /** The file and function whose handler answers it. */
  readonly handler: string;
  /** Mounted only when this holds (every time when absent). */
  readonly mountedWhen?: (listener: Listener, config: Pick<Config, 'METRICS' | 'METRICS_PORT'>) => boolean;
}

export const gatewayRoutes = {
  graphql: {
    methods: ['GET', 'POST'],
    path: '/graphql',
    listeners: ['api'],
    purpose: 'GraphQL over HTTP (bearer token); GraphiQL for a browser that asks for text/html without a query',
    handler: 'src/http/app.ts createMainApp',
  },
  graphqlStream: {
    methods: ['GET', 'POST'],
    path: '/graphql/stream',
    listeners: ['api'],
    purpose: 'GraphQL over server-sent events (graphql-sse, distinct connections): subscriptions',
    handler: 'src/http/app.ts createMainApp',
  },
  healthz: {
    methods: ['GET'],
    path: '/healthz',
    listeners: ['api', 'video'],
    purpose: 'Liveness: the process is up (no auth)',
    handler: 'src/http/app.ts mountHealth',
  },
  readyz: {
    methods: ['GET'],
    path: '/readyz',
    listeners: ['api', 'video'],
    purpose: 'Readiness: the database answers, else 503 (no auth)',
    handler: 'src/http/app.ts mountHealth',
  },
  jwks: {
    methods: ['GET'],
    path: '/.well-known/jwks.json',
    listeners: ['api'],
    purpose: 'The public keys access tokens are signed with (no auth)',
    handler: 'src/http/app.ts createMainApp',
  },
  oauthMetadata: {
    methods: ['GET'],
    path: '/.well-known/oauth-authorization-server',
    listeners: ['api'],
    purpose: 'OAuth 2.0 authorization server metadata (RFC 8414) for standard clients (no auth)',
    handler: 'src/http/oauth.ts mountStandardOAuth',
  },
  oauthToken: {
    methods: ['POST'],
    path: '/oauth/token',
    listeners: ['api'],
    purpose: 'OAuth 2.0 token endpoint as standard clients speak it (RFC 6749 answers)',
    handler: 'src/http/oauth.ts mountStandardOAuth',
  },
  oauthRevoke: {
    methods: ['POST'],
    path: '/oauth/revoke',
    listeners: ['api'],
    purpose: 'OAuth 2.0 token revocation as standard clients speak it (RFC 7009)',
    handler: 'src/http/oauth.ts mountStandardOAuth',
  },
  metrics: {
    methods: ['GET'],
    path: '/metrics',
    listeners: ['api', 'metrics'],
    purpose: 'Prometheus metrics (no bearer auth: keep the port private)',
    handler: 'src/observability/endpoint.ts mountMetrics',
    // On the API listener with METRICS on, unless METRICS_PORT gives it a listener of its own.
    mountedWhen: (listener, config) => listener === 'metrics' || (config.METRICS && config.METRICS_PORT === undefined),
  },
  docs: {
    methods: ['GET'],
    path: '/docs',
    listeners: ['api'],
    purpose: 'The interactive REST reference page (Swagger UI, served from this process)',
    handler: 'src/http/docs.ts mountDocs',
  },
  docsInit: {
    methods: ['GET'],
    path: '/docs/init.js',
    listeners: ['api'],
    purpose: "The reference page's script: points Swagger UI at openapi.json",
    handler: 'src/http/docs.ts mountDocs',
  },
  docsAssets: {
    methods: ['GET'],
    path: '/docs/assets/:file',
    listeners: ['api'],
    purpose: "Swagger UI's stylesheet, script and icon (a closed set; anything else is 404)",
    handler: 'src/http/docs.ts mountDocs',
  },
  openapi: {
    methods: ['GET'],
    path: `${V1_PREFIX}/openapi.json`,
    listeners: ['api'],
    purpose: 'The OpenAPI document of the REST API (no auth)',
    handler: 'src/http/docs.ts mountDocs',
  },
  token: {
    methods: [tokenRoute.method],
    path: `${V1_PREFIX}${tokenRoute.path}`,
    listeners: ['api'],
    purpose: 'OAuth 2.0 client credentials: issues access tokens',
    handler: 'src/rest/token-route.ts tokenHandler',
  },
} as const satisfies Record<string, GatewayRoute>;

/** One row of the route table: a method and path of one listener. */
export interface RouteEntry {
  listener: Listener;
  method: string;
  path: string;
  purpose: string;
  handler: string;
}

const operationName = (document: string) => /\b(?:query|mutation)\s+(\w+)/.exec(document)?.[1] ?? 'its document';

/**
 * Every route the listeners mount under `config`: the gateway's own, the REST paths (each runs
 * its GraphQL document through the schema, src/rest/adapter.ts) and the video host's.
 */
export function routeTable(config: Pick<Config, 'METRICS' | 'METRICS_PORT'>): RouteEntry[] {
  const gateway = Object.values(gatewayRoutes as Record<string, GatewayRoute>).flatMap((route) =>
    route.listeners
      .filter((listener) => (listener !== 'metrics' || config.METRICS_PORT !== undefined) && (route.mountedWhen?.(listener, config) ?? true))
      .flatMap((listener) => route.methods.map((method) => ({ listener, method, path: route.path, purpose: route.purpose, handler: route.handler }))),
  );
  const rest = restSources.flatMap(([file, routes]) =>
    routes.map((route) => ({
      listener: 'api' as const,
      method: route.method,
      path: `${V1_PREFIX}${route.path}`,
      purpose: `REST: runs ${operationName(route.document)} through the schema`,
      handler: `${file} (mounted by src/rest/adapter.ts mountRoutes)`,
    })),
  );
  const video = videoHostRoutes.map((route) => ({
    listener: 'video' as const,
    method: route.method,
    path: route.path,
    purpose: `Video host: runs ${operationName(route.document)} through the schema`,
    handler: 'src/video/rest.ts (mounted by src/rest/adapter.ts mountLookupRoutes)',
  }));
  return [...gateway, ...rest, ...video];
}
