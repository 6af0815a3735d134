import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { toAppError } from '../graphql/errors.js';
import type { HttpEnv } from '../web/hono-env.js';
import { httpDuration, httpRequests } from './metrics.js';

/**
 * Counts and times every request by its route template. After the chain ran, `routePath` is
 * the path of the last handler that ran (`/api/v1/analytics/:appId/messages`); a request that
 * reached only middleware (no route) is labelled `unmatched`, so raw URLs never become label values.
 */
export function httpMetrics(listener: 'main' | 'video'): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const started = performance.now();
    const record = (status: number) => {
      const matched = routePath(c);
      // Only middleware (`*` paths) ran: no route matched (404 not_found from notFound).
      const route = !matched || matched.includes('*') ? 'unmatched' : matched;
      const labels = { listener, route, method: c.req.method, status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, (performance.now() - started) / 1000);
    };
    try {
      await next();
    } catch (error) {
      // Thrown past this middleware (notFound throws): the app's onError answers with this status.
      record(toAppError(error)?.status ?? 500);
      throw error;
    }
    record(c.res.status);
  };
}
