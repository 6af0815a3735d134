import type { Hono } from 'hono';
import type { HttpEnv } from '../http/types.js';
import type { Runtime } from '../runtime.js';
import { collectProcessMetrics, dbPoolMax, dbQueries, registry, sseConnections } from './metrics.js';

/** Sets the gauges that are read from the runtime at scrape time, then renders the registry. */
export async function renderMetrics(runtime: Runtime): Promise<string> {
  sseConnections.set(runtime.timeline.size);
  const driver = runtime.database.kind;
  dbPoolMax.reset();
  dbPoolMax.set({ driver }, driver === 'postgres' ? runtime.config.DB_POOL_MAX : 1);
  dbQueries.reset();
  dbQueries.set({ driver }, runtime.database.queries.count);
  return registry.metrics();
}

/** GET /metrics in Prometheus text format; no bearer auth (keep the port private, or use METRICS_PORT). */
export function mountMetrics(app: Hono<HttpEnv>, runtime: Runtime): void {
  collectProcessMetrics();
  app.get('/metrics', async (c) => c.body(await renderMetrics(runtime), 200, { 'content-type': registry.contentType }));
}
