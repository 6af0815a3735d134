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
}

/** What the floor runs: the service's SQL text, its parameters from the floor URL, and the response body. */
export interface FloorQuery {
  sql: string;
  params: (query: URLSearchParams) => unknown[];
  respond: (rows: Record<string, unknown>[], query: URLSearchParams) => unknown;
}

export interface Scenario {
  name: string;
  title: string;
  /** Request against the service. */
  request: (ctx: ScenarioContext) => HttpRequest;
  /** Request against the floor (GET /<scenario name>?...) when the scenario has one. */
  floorRequest?: (ctx: ScenarioContext) => HttpRequest;
  floor?: FloorQuery;
  /**
   * What must agree between a service response and a floor response (checked once before
   * measuring, so the floor provably reads the same rows): a projection of each body.
   */
  compare?: { service: (body: any) => unknown; floor: (body: any) => unknown };
  /** A scenario whose req/s this one is also compared with (GraphQL against REST). */
  versus?: string;
  /** autocannon connections (default BENCH_CONNECTIONS, 32). */
  connections?: number;
}

/** A capability named by the issue that the service does not have yet: listed, never faked. */
export interface PendingScenario {
  name: string;
  title: string;
  reason: string;
}
