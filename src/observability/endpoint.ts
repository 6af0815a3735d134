import type { Hono } from 'hono';
import type { HttpEnv } from '../web/hono-env.js';
import type { Runtime } from '../runtime.js';
import { methodNotAllowed } from '../errors/envelope.js';
import { replicaLag } from '../db/replica.js';
import { collectProcessMetrics, dbPoolMax, dbQueries, dbReplicaBehind, dbReplicaLag, dbReplicaUp, registry, sseConnections } from './metrics.js';

/** Sets the gauges that are read from the runtime at scrape time, then renders the registry. */
export async function renderMetrics(runtime: Runtime): Promise<string> {
  sseConnections.set(runtime.events.size);
  const driver = runtime.database.kind;
  dbPoolMax.reset();
  dbPoolMax.set({ driver }, driver === 'postgres' ? runtime.config.DB_POOL_MAX : 1);
  dbQueries.reset();
  dbQueries.set({ driver }, runtime.database.queries.count);
  await recordReplicaLag(runtime);
  return registry.metrics();
}

async function recordReplicaLag(runtime: Runtime): Promise<void> {
  const { replica } = runtime.database;
  dbReplicaUp.reset();
  dbReplicaLag.reset();
  dbReplicaBehind.reset();
  if (!replica) return;
  // host:port/database names the replica without its credentials.
  const { host, port, database } = replica.options as unknown as { host: string[]; port: number[]; database: string };
  const labels = { replica: `${host[0]}:${port[0]}/${database}` };
  try {
    const lag = await replicaLag(replica);
    dbReplicaUp.set(labels, 1);
    dbReplicaLag.set(labels, lag.seconds);
    dbReplicaBehind.set(labels, lag.bytes);
  } catch (error) {
    dbReplicaUp.set(labels, 0);
    runtime.logger.warn({ err: error }, 'analytics replica lag could not be read');
  }
}

/** GET `path` (/metrics) in Prometheus text format; no bearer auth (keep the port private, or use METRICS_PORT). */
export function mountMetrics(app: Hono<HttpEnv>, runtime: Runtime, path: string): void {
  collectProcessMetrics();
  app.get(path, async (c) => c.body(await renderMetrics(runtime), 200, { 'content-type': registry.contentType }));
  // Another method is a 405 with Allow (RFC 9110), as on every other path, not a 404.
  app.all(path, methodNotAllowed(['GET']));
}
