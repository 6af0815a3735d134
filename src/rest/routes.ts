import { analyticsRoutes } from '../analytics/rest.js';
import { revokeRoute } from '../auth/rest.js';
import { schedulingRoutes } from '../scheduling/rest.js';
import { sendRoutes } from '../sends/rest.js';
import { videoCallLookupRoute } from '../video/rest.js';
import type { RestRoute } from './adapter.js';
import { tokenHandler } from './token-route.js';

// Every v1 path that runs through the schema; each domain contributes its own list.
export const restRoutes: readonly RestRoute[] = [revokeRoute, ...analyticsRoutes, ...schedulingRoutes, ...sendRoutes];

// Every path of the video host ({video_url}/api/...), answered in its own envelope.
export const videoHostRoutes: readonly RestRoute[] = [videoCallLookupRoute];

// The one v1 path outside the schema: the token endpoint authenticates the client itself, before
// any bearer context exists. The gateway's own endpoints (/graphql, /graphql/stream, /healthz,
// /readyz, /.well-known/jwks.json, /docs, /metrics) are mounted by the listener: src/http/app.ts,
// src/http/docs.ts and src/observability/endpoint.ts.
export const tokenRoute = { method: 'POST', path: '/oauth/token', handler: tokenHandler } as const;
