import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// The process's Prometheus registry and every metric Switchboard exports (served at /metrics,
// src/observability/endpoint.ts). Other modules import the metric they record: the webhook
// worker records `webhookDeliveries.inc({ outcome })`.

export const registry = new Registry();

let defaultMetrics = false;
/** prom-client's process metrics (CPU, memory, event loop, GC), started once /metrics is served. */
export function collectProcessMetrics(): void {
  if (defaultMetrics) return;
  defaultMetrics = true;
  collectDefaultMetrics({ register: registry, prefix: 'switchboard_' });
  observeMajorGc();
}

export const heapUsedAfterMajorGc = new Gauge({
  name: 'switchboard_nodejs_heap_used_after_major_gc_bytes',
  help: 'V8 used heap read right after the latest major (mark-compact) garbage collection; 0 until one ran. Unlike nodejs_heap_size_used_bytes it carries little garbage: a floor that keeps rising under steady load is a leak.',
  registers: [registry],
});

let gcObserver: PerformanceObserver | undefined;
function observeMajorGc(): void {
  if (gcObserver) return;
  // The observer is called shortly after the collection (entries are delivered in batches),
  // so the reading includes what was allocated in between: little next to the garbage a
  // random sample of nodejs_heap_size_used_bytes holds.
  gcObserver = new PerformanceObserver((list) => {
    const major = list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (major) heapUsedAfterMajorGc.set(getHeapStatistics().used_heap_size);
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}

export const httpRequests = new Counter({
  name: 'switchboard_http_requests_total',
  help: 'HTTP requests by listener, route template (the Hono route path, not the raw URL), method and status.',
  labelNames: ['listener', 'route', 'method', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'switchboard_http_request_duration_seconds',
  help: 'HTTP request latency in seconds, until the response headers (streams count until they start).',
  labelNames: ['listener', 'route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const graphqlOperations = new Counter({
  name: 'switchboard_graphql_operations_total',
  help: 'GraphQL operations executed on /graphql and /graphql/stream, by operation name (anonymous when unnamed; the service\'s own names and the first GRAPHQL_METRIC_OPERATION_NAMES others, then other), type and result (ok or error).',
  labelNames: ['operation', 'type', 'result'] as const,
  registers: [registry],
});

export const rateLimitRejections = new Counter({
  name: 'switchboard_rate_limit_rejections_total',
  help: 'Requests refused with 429 rate_limit_exceeded, by listener (rest, graphql, video).',
  labelNames: ['listener'] as const,
  registers: [registry],
});

export const sseConnections = new Gauge({
  name: 'switchboard_sse_connections_open',
  help: 'Open GraphQL subscription streams (timeline and event subscribers) on this instance.',
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: 'switchboard_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome (e.g. delivered, failed, retried, dropped).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const dbPoolMax = new Gauge({
  name: 'switchboard_db_pool_max_connections',
  help: 'Configured size of the database connection pool (postgres.js: DB_POOL_MAX; embedded PGlite: 1).',
  labelNames: ['driver'] as const,
  registers: [registry],
});

export const dbQueries = new Gauge({
  name: 'switchboard_db_queries',
  help: 'Statements sent through the query builder since start.',
  labelNames: ['driver'] as const,
  registers: [registry],
});

export const dbReplicaUp = new Gauge({
  name: 'switchboard_db_replica_up',
  help: 'Whether the analytics replica (DATABASE_REPLICA_URL, labelled host:port/database) answered the lag query at this scrape: 1 or 0. Absent without a replica.',
  labelNames: ['replica'] as const,
  registers: [registry],
});

export const dbReplicaLag = new Gauge({
  name: 'switchboard_db_replica_lag_seconds',
  help: 'Age of the newest transaction the analytics replica has replayed, or 0 when it has replayed all it received: analytics reads may miss writes this recent. Absent without a replica or when it did not answer.',
  labelNames: ['replica'] as const,
  registers: [registry],
});

export const dbReplicaBehind = new Gauge({
  name: 'switchboard_db_replica_replay_behind_bytes',
  help: 'WAL the analytics replica has received but not yet applied, in bytes.',
  labelNames: ['replica'] as const,
  registers: [registry],
});

export const httpConnectionsOpen = new Gauge({
  name: 'switchboard_http_connections_open',
  help: 'Open TCP connections by listener (main, video, metrics); MAX_CONNECTIONS caps each, plus HEALTH_RESERVE_CONNECTIONS for health checks.',
  labelNames: ['listener'] as const,
  registers: [registry],
});

export const httpConnectionsRefused = new Counter({
  name: 'switchboard_http_connections_refused_total',
  help: 'Connections turned away by listener and reason: reserve (over MAX_CONNECTIONS, a request other than a health check answered 503) or dropped (over the reserve too, closed unanswered).',
  labelNames: ['listener', 'reason'] as const,
  registers: [registry],
});

export const sseStreamsClosedLagging = new Counter({
  name: 'switchboard_sse_streams_closed_lagging_total',
  help: 'GraphQL streams closed because their reader fell behind (STREAM_QUEUE_EVENTS or STREAM_QUEUE_BYTES), with a stream_lagging error.',
  registers: [registry],
});

export const sseStreamsRefused = new Counter({
  name: 'switchboard_sse_streams_refused_total',
  help: 'GraphQL streams refused with 429 before opening, by the cap reached: client (STREAMS_PER_CLIENT) or app (STREAMS_PER_APP).',
  labelNames: ['cap'] as const,
  registers: [registry],
});

export const webhookSendsInFlight = new Gauge({
  name: 'switchboard_webhook_sends_in_flight',
  help: 'Webhook sends under way in this process (at most WEBHOOK_CONCURRENCY).',
  registers: [registry],
});
