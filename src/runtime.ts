import type { ClientQuota, RateLimits, RateStatus } from './auth/rate-limit.js';
import type { SigningKeys } from './auth/keys.js';
import type { AuthContext, TokenSettings } from './auth/tokens.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { KeyClaim } from './db/idempotency.js';
import type { Logger } from './log.js';
import type { EventBus } from './events/log.js';
import type { Pruning } from './db/pruning.js';
import type { TimelineBus } from './realtime/timeline-bus.js';
import type { Clock } from './time/clock.js';
import type { WebhookWorker } from './webhooks/worker.js';

/** Process-wide dependencies, built once in main.ts (or by the test server). */
export interface Runtime {
  config: Config;
  logger: Logger;
  /** The current time of every service (a test server may fix it). */
  clock: Clock;
  database: Database;
  keys: SigningKeys;
  tokens: TokenSettings;
  rateLimits: RateLimits;
  /** Scheduled-call timelines of every instance, for this instance's subscribers: a view of `events`. */
  timeline: TimelineBus;
  /** App event logs of every instance, for this instance's `events` and timeline subscribers (one set of stream caps). */
  events: EventBus;
  /** Deletes events past EVENT_RETENTION_DAYS and revocations of expired tokens (db/pruning.ts). */
  pruning: Pruning;
  /** Re-reads the signing keys (rotation on any instance). */
  keyRefresh: NodeJS.Timeout;
  /** Outbound webhooks and reminders; polling starts with the servers (startServers). */
  webhooks: WebhookWorker;
}

/** What a service call knows about its caller: the GraphQL context and the service `ctx`. */
export interface RequestContext {
  runtime: Runtime;
  requestId: string;
  /** A child of the runtime's logger bound to the request id. */
  readonly logger: Logger;
  /** Present on every authenticated request; the token endpoint runs without one. */
  auth: AuthContext | undefined;
  /** Per-request memo (DataLoaders live here, never in a long-lived cache: a later request must see new writes). */
  readonly loaders: Map<string, unknown>;
  /**
   * The operation is one of the service's own documents (a v1 REST route's), not a client's:
   * its cost is bounded by its validated arguments, so the complexity budget is not computed.
   */
  ownDocument: boolean;
  /**
   * Lists' end cursors are read only when a next page follows: a v1 list's pagination (rest/list.ts)
   * has no cursor on a last page, so its end cursor (an HMAC) is not made for nothing.
   */
  endCursorOnlyWithNextPage: boolean;
  /**
   * performance.now() past which the operation's resolvers refuse to start (OPERATION_TIMEOUT_MS),
   * set once the request is authenticated; undefined for streams, whose events run for as long as
   * the subscription lasts.
   */
  deadline: number | undefined;
  /**
   * Headers every response to this request carries (X-Request-Id, the rate-limit window), known
   * before the route runs. A route that writes them into its own response (jsonResponse) marks
   * them written, and the middleware does not add them again through the Response's Headers.
   */
  readonly responseHeaders: Record<string, string>;
  responseHeadersWritten: boolean;
  /**
   * The client's quota and the window its request surfaced, set once the request is counted: a
   * GraphQL operation charges the rest of its cost against them (graphql/query-cost.ts).
   */
  rateLimit: { clientId: string; quota: ClientQuota; status: RateStatus } | undefined;
  /** The operation's cost once query-cost.ts has measured and checked it: the complexity plugin need not again. */
  queryCost: number | undefined;
  /** The Idempotency-Key this write request holds; its write transaction marks it applied (writeTransaction). */
  idempotency: KeyClaim | undefined;
  /**
   * A subscription on /graphql/stream: where it resumes from (the Last-Event-ID header, which wins
   * over `after`), and where its events report their cursor for the frame's `id:` line.
   */
  stream: { resumeAfter: string | undefined; onEvent: (cursor: string) => void } | undefined;
}

/**
 * The context of one HTTP request. Its logger and loader map are made on first use: most reads
 * log nothing at the default level and use no loader, and a pino child per request (its bindings
 * serialized, the redaction paths parsed) would cost CPU and garbage on every request.

 * Own enumerable getters, not a class: graphql-yoga copies the context with Object.assign, which
 * reads own getters and would miss a prototype's.
 */
export function createRequestContext(runtime: Runtime, requestId: string): RequestContext {
  let logger: Logger | undefined;
  let loaders: Map<string, unknown> | undefined;
  return {
    runtime,
    requestId,
    auth: undefined,
    ownDocument: false,
    endCursorOnlyWithNextPage: false,
    deadline: undefined,
    responseHeaders: { 'X-Request-Id': requestId },
    responseHeadersWritten: false,
    rateLimit: undefined,
    queryCost: undefined,
    idempotency: undefined,
    stream: undefined,
    get logger() {
      return (logger ??= runtime.logger.child({ requestId }));
    },
    get loaders() {
      return (loaders ??= new Map());
    },
  };
}

export function loader<T>(ctx: RequestContext, key: string, create: () => T): T {
  let value = ctx.loaders.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    ctx.loaders.set(key, value);
  }
  return value;
}
