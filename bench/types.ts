/**
 * The shape of a benchmark scenario: one small module in bench/scenarios/ (name, setup,
 * request, optional floor SQL). The harness (bench/run.ts) seeds, starts the service and the
 * floor, drives both with autocannon and writes the table.
 */

export type StorageKind = 'postgres' | 'pglite';

/** A seeded dataset, cached between runs (.bench-data/<kind>-<messages>.json). */
export interface Dataset {
  kind: StorageKind;
  messages: number;
  /** PostgreSQL database URL, or the PGlite DATA_DIR of the service (the floor opens a copy). */
  databaseUrl?: string;
  dataDir?: string;
  floorDataDir?: string;
  seededAt: string;
  /** The big app, and a second (smaller) app sharing the tables. */
  appId: string;
  otherAppId: string;
  otherMessages: number;
  clientId: string;
  clientSecret: string;
  /** Values read from the data once at seed time, so scenarios ask for rows that exist. */
  probe: {
    /** A full phone number of a contact of the big app (search page). */
    searchPhone: string;
    /** The row at 90% of the big app's list (deep cursor page). */
    deep: { createdAt: string; id: string };
    /**
     * The service's keyset cursor key (base64url, derived from its signing key), so the deep page
     * is asked for with a cursor the service accepts. Absent from datasets seeded before cursors
     * were signed: seed again.
     */
    cursorKey?: string;
  };
  /** The scheduling data (bench/scheduling-data.ts), a cached step of its own, and its client. */
  scheduling?: {
    version: number;
    importedAt: string;
    /** A client with scheduling:read and scheduling:write on both apps. */
    clientId: string;
    clientSecret: string;
    counts: Record<string, unknown>[];
  };
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ScenarioContext {
  dataset: Dataset;
  /** A bearer token of the bench client (every read scope, both apps, no practical rate limit). */
  token: string;
  /** A bearer token with scheduling:read and scheduling:write on both apps. */
  schedulingToken: string;
}

/**
 * What the floor runs: the service's SQL text, its parameters from the floor URL (and, for a
 * scenario whose service request is a POST, from the same JSON body, which the floor reads and
 * parses as the service must), and the response body.
 */
export interface FloorQuery {
  sql: string;
  params: (query: URLSearchParams, body?: any) => unknown[];
  /**
   * Instead of `sql` and `params`: the text and parameters built per request, for a query whose
   * text depends on the request (the metrics queries, built by the service's own SQL builders).
   * With `settings` (SET LOCAL statements), the query runs after them in a read-only transaction,
   * as the service runs it.
   */
  build?: (query: URLSearchParams) => { sql: string; params: unknown[]; settings?: string[] };
  /**
   * The statement is one the service plans once (an unfiltered page, src/db/keyset.ts): on
   * PostgreSQL the floor runs it on a pool of its own with generic plans, as the service does.
   */
  plannedOnce?: boolean;
  respond: (rows: Record<string, unknown>[], query: URLSearchParams) => unknown;
}

export interface Scenario {
  name: string;
  title: string;
  /** Request against the service. */
  request: (ctx: ScenarioContext) => HttpRequest;
  /**
   * Requests sent in turn, one per request across all connections (a global counter), e.g. PATCHes
   * that rotate over many calls; `request` is the one checked before measuring.
   */
  rotate?: (ctx: ScenarioContext) => HttpRequest[];
  /**
   * Measured in the harness's own process before the service starts (PGlite has one owner):
   * e.g. the pure slot engine on the same calendars. Reported beside the load figures.
   */
  compute?: (dataset: Dataset) => Promise<ComputeResult>;
  /** Request against the floor (GET /<scenario name>?..., or POST with the service's body) when the scenario has one. */
  floorRequest?: (ctx: ScenarioContext) => HttpRequest;
  floor?: FloorQuery;
  /** Why a scenario has no floor, for the table's notes. */
  noFloor?: string;
  /**
   * What must agree between a service response and a floor response (checked once before
   * measuring, so the floor provably reads the same rows): a projection of each body.
   */
  compare?: { service: (body: any) => unknown; floor: (body: any) => unknown };
  /** A scenario whose req/s this one is also compared with (GraphQL against REST). */
  versus?: string;
  /** autocannon connections (default BENCH_CONNECTIONS, 32). */
  connections?: number;
  /**
   * An offered load in requests per second, evenly spaced, over at most `connections`
   * connections (bench/paced.ts, open loop): latency at a load the server keeps up with, not at
   * saturation. Service and floor are both held to it, so the scenario reports latency, not a
   * ratio of req/s.
   */
  rate?: Record<StorageKind, number>;
}

/** A capability named by the issue that the service does not have yet: listed, never faked. */
export interface PendingScenario {
  name: string;
  title: string;
  reason: string;
}

export interface ComputeResult {
  label: string;
  runs: number;
  medianMs: number;
  p99Ms: number;
  /** What the target is, e.g. < 5 ms. */
  targetMs?: number;
  detail?: string;
}

/**
 * Not an autocannon scenario: `subscribers` graphql-sse subscriptions held open, one write per
 * round, and the time until every subscriber has its event (bench/sse.ts).
 */
export interface FanoutScenario {
  kind: 'fanout';
  name: string;
  title: string;
  subscribers: number;
  rounds: number;
  targetMs: number;
  subscription: (ctx: ScenarioContext) => { query: string; variables: Record<string, unknown> };
  /** The call each round reschedules (PATCH to the other of its two times, with a per-round reason). */
  call: (ctx: ScenarioContext) => { path: string; times: [string, string] };
}

/**
 * Not an autocannon scenario: `subscribers` subscriptions to the app stream held open while events
 * are written at a steady `rate` for `seconds`; every subscriber must get every event once, in
 * order, and the delivery latencies are reported (bench/sse-sustained.ts).
 */
export interface SustainedScenario {
  kind: 'sustained';
  name: string;
  title: string;
  subscribers: number;
  rate: number;
  seconds: number;
  subscription: (ctx: ScenarioContext) => { query: string; variables: Record<string, unknown> };
  /** The call each write reschedules (PATCH to the other of its two times, with a per-write reason). */
  call: (ctx: ScenarioContext) => { path: string; times: [string, string] };
}

/** A peer GraphQL server (bench/peers/, its own package.json): one script run under Node `minNode` or newer. */
export interface Peer {
  /** Row key in the table: a plain name, stable across versions. */
  name: string;
  /** bench/peers/<script>. */
  script: string;
  /** Lowest Node.js major it runs on; an older BENCH_NODE (or harness node) gives way to scripts/node-lts.sh's binary. */
  minNode: number;
  /** Packages of bench/peers/node_modules whose versions the table names. */
  packages: string[];
  /** What the peer does for the page, for the table's notes. */
  describe: string;
  request: (ctx: ScenarioContext) => HttpRequest;
  /** The ids of the page, in order, from its answer (checked against the service's before measuring). */
  ids: (body: any) => unknown;
}

/**
 * Not a service-versus-floor scenario: the service's `versus` page measured in the same rounds as
 * peer GraphQL servers answering the same page from the same database (PostgreSQL only).
 */
export interface PeersScenario {
  kind: 'peers';
  name: string;
  title: string;
  /** The service scenario the peers answer (its request, and its `compare.service` projection of ids). */
  versus: Scenario;
  peers: Peer[];
}
