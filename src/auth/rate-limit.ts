import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

// Per client, three windows; headers surface the window with the smallest
// remaining fraction (ties: the shorter); any exhausted window answers 429 with Retry-After.
export const windows = [
  { name: 'minute', seconds: 60 },
  { name: 'hour', seconds: 3600 },
  { name: 'day', seconds: 86400 },
] as const;
export type WindowName = (typeof windows)[number]['name'];

/** How long a rate-limit command may wait on Redis before its request is counted in memory. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long the Redis socket may stay silent with commands pending before it is dropped. */
export const REDIS_SOCKET_TIMEOUT_MS = 1000;

export interface ClientQuota {
  minute: number;
  hour: number;
  day: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds, only when refused. */
  retryAfter?: number;
  /** The window the headers surface, as GraphQL's `extensions.cost.throttleStatus` reports it. */
  status: RateStatus;
}

export interface RateStatus {
  window: WindowName;
  limit: number;
  remaining: number;
  /** Epoch milliseconds at which the window starts over. */
  resetAt: number;
}

interface WindowState {
  window: WindowName;
  limit: number;
  remaining: number;
  msBeforeNext: number;
  refused: boolean;
  /** The store counted the points (to be given back if the charge is refused). */
  counted: boolean;
}

interface WindowLimiter {
  window: WindowName;
  limit: number;
  limiter: RateLimiterAbstract;
}

type WindowTrio = [WindowLimiter, WindowLimiter, WindowLimiter];

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly quotas = new Map<string, WindowTrio>();
  private readonly redis: Redis | undefined;
  private readonly tokenFailures: Record<'address' | 'clientAddress' | 'client', { limiter: RateLimiterAbstract; budget: number }>;
  private readonly tokensIssued: { limiter: RateLimiterAbstract; budget: number };

  constructor(
    private readonly config: Pick<
      Config,
      | 'REDIS_URL'
      | 'RATE_LIMIT_MINUTE'
      | 'RATE_LIMIT_HOUR'
      | 'RATE_LIMIT_DAY'
      | 'TOKEN_FAILURES_PER_15MIN'
      | 'TOKEN_FAILURES_PER_ADDRESS_15MIN'
      | 'TOKEN_FAILURES_PER_CLIENT_15MIN'
      | 'TOKENS_PER_CLIENT_MINUTE'
    >,
    private readonly logger: Logger,
  ) {
    if (config.REDIS_URL) {
      // No offline queue, so a Redis outage fails fast into the
      // in-memory insurance limiter instead of waiting out retries.
      this.redis = new Redis(config.REDIS_URL, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        lazyConnect: false,
        // A Redis that keeps the connection open but stops answering (a hung server, a
        // half-open link) is still "ready" to ioredis: without these every request waited on
        // it for as long as the socket stayed up. A command unanswered in
        // COMMAND_TIMEOUT_MS fails, so its request falls back to memory; a socket silent for
        // SOCKET_TIMEOUT_MS with commands pending is dropped, and until a reconnect is ready
        // again every request goes to memory at once.
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        socketTimeout: REDIS_SOCKET_TIMEOUT_MS,
      });
      let down = false;
      this.redis.on('error', (error) => {
        if (!down) logger.warn({ err: error.message }, 'redis unavailable: rate limits fall back to per-instance memory');
        down = true;
      });
      this.redis.on('ready', () => {
        if (down) logger.info('redis reachable again: rate limits shared across instances');
        down = false;
      });
    }
    const failures = (prefix: string, budget: number) => ({ limiter: this.limiter(prefix, budget, TOKEN_FAILURE_WINDOW_SECONDS), budget });
    this.tokenFailures = {
      address: failures('token-fail-addr', config.TOKEN_FAILURES_PER_ADDRESS_15MIN),
      clientAddress: failures('token-fail-client-addr', config.TOKEN_FAILURES_PER_15MIN),
      client: failures('token-fail-client', config.TOKEN_FAILURES_PER_CLIENT_15MIN),
    };
    this.tokensIssued = { limiter: this.limiter('token-issue', config.TOKENS_PER_CLIENT_MINUTE, 60), budget: config.TOKENS_PER_CLIENT_MINUTE };
  }

  defaultQuota(): ClientQuota {
    return { minute: this.config.RATE_LIMIT_MINUTE, hour: this.config.RATE_LIMIT_HOUR, day: this.config.RATE_LIMIT_DAY };
  }

  /** Counts one request of `clientId` in all three windows. */
  async consume(clientId: string, quota: ClientQuota): Promise<RateDecision> {
    return this.decide(await this.consumeWindows(clientId, quota, 1));
  }

  /**
   * Charges `points` more to a request consume already counted (a GraphQL operation's cost past
   * its first point), all or nothing: when a window cannot pay them, they are given back in every
   * window and the decision is a refusal, so a refused operation costs its client nothing more.
   */
  async charge(clientId: string, quota: ClientQuota, points: number): Promise<RateDecision> {
    const states = await this.consumeWindows(clientId, quota, points);
    if (states.some((s) => s.refused)) {
      const trio = this.windowLimiters(quota);
      await Promise.all(
        states.map((state, i) =>
          state.counted ? trio[i]!.limiter.reward(clientId, points).catch((error: unknown) => this.logger.error({ err: error }, 'rate limiter failure; refused charge not given back')) : undefined,
        ),
      );
    }
    return this.decide(states);
  }

  private async consumeWindows(clientId: string, quota: ClientQuota, points: number): Promise<WindowState[]> {
    const [minute, hour, day] = this.windowLimiters(quota);
    return Promise.all([this.consumeWindow(minute, clientId, points), this.consumeWindow(hour, clientId, points), this.consumeWindow(day, clientId, points)]);
  }

  private decide(states: WindowState[]): RateDecision {
    const refused = states.filter((s) => s.refused);
    if (refused.length > 0) {
      const worst = refused.reduce((a, b) => (b.msBeforeNext > a.msBeforeNext ? b : a));
      const retryAfter = Math.max(1, Math.ceil(worst.msBeforeNext / 1000));
      return { allowed: false, retryAfter, headers: { ...headersFor(worst), 'Retry-After': String(retryAfter) }, status: statusOf(worst) };
    }
    // `windows` is ordered shortest first, so a strict comparison keeps the shorter on ties.
    const surfaced = states.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
    return { allowed: true, headers: headersFor(surfaced), status: statusOf(surfaced) };
  }

  /**
   * Whether a token request (its client id and source address, as `keys`) is refused before its
   * secret is checked (Retry-After seconds), against secret guessing without locking out the
   * client's own callers:
   * - an address that spent its failure budget is refused, whatever the client id;
   * - an address that spent its budget for this client id is refused for that client;
   * - while a client id is over its budget from all addresses together (a guess spread over
   *   many addresses), an address that has failed for it at all is refused for it.
   * A right secret from an address with no failures for the client is never refused, whatever
   * other addresses did.
   */
  async tokenAttemptRefused(keys: TokenFailureKeys): Promise<number | undefined> {
    const { address: perAddress, clientAddress, client } = this.tokenFailures;
    const [a, ca, c] = await Promise.all([
      perAddress.limiter.get(keys.address).catch(() => null),
      clientAddress.limiter.get(keys.clientAddress).catch(() => null),
      client.limiter.get(keys.client).catch(() => null),
    ]);
    const used = (res: RateLimiterRes | null) => res?.consumedPoints ?? 0;
    const refusing = [
      used(a) >= perAddress.budget ? a : null,
      used(ca) >= clientAddress.budget || (used(c) >= client.budget && used(ca) > 0) ? ca : null,
    ];
    return retryAfterOf(refusing);
  }

  /**
   * Counts a failed attempt. Returns Retry-After seconds when the failure is past a budget: a
   * guess checked concurrently with others that already used the budget (they all passed
   * tokenAttemptRefused before any failed) is answered 429, not 401, so it tells nothing.
   */
  async recordTokenFailure(keys: TokenFailureKeys): Promise<number | undefined> {
    const { address: perAddress, clientAddress, client } = this.tokenFailures;
    const [a, ca, c] = await Promise.all([
      this.countFailure(perAddress.limiter, keys.address),
      this.countFailure(clientAddress.limiter, keys.clientAddress),
      this.countFailure(client.limiter, keys.client),
    ]);
    const refusing = [
      a.consumedPoints > perAddress.budget ? a : null,
      ca.consumedPoints > clientAddress.budget || (c.consumedPoints > client.budget && ca.consumedPoints > 1) ? ca : null,
    ];
    return retryAfterOf(refusing);
  }

  /**
   * Counts a token about to be issued to `clientId`, whose secret is checked (so no one else can
   * spend it); Retry-After seconds once the client has had TOKENS_PER_CLIENT_MINUTE in the last
   * minute. Apart from the request windows: a token request changes no X-RateLimit-* count.
   */
  async tokenIssueRefused(clientId: string): Promise<number | undefined> {
    const issued = await this.countOne(this.tokensIssued.limiter, clientId, 'token issue');
    return issued.consumedPoints > this.tokensIssued.budget ? retryAfterOf([issued]) : undefined;
  }

  private countFailure(limiter: RateLimiterAbstract, key: string) {
    return this.countOne(limiter, key, 'token failure');
  }

  /** A count past its budget is a RateLimiterRes too; a store error counts as nothing. */
  private async countOne(limiter: RateLimiterAbstract, key: string, what: string): Promise<{ consumedPoints: number; msBeforeNext: number }> {
    try {
      return await limiter.consume(key, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return rejection;
      this.logger.error({ err: rejection }, `rate limiter failure; ${what} not counted`);
      return { consumedPoints: 0, msBeforeNext: 0 };
    }
  }

  /**
   * The three limiters of a quota, looked up once per request (one key, one Map read): the
   * request path creates no limiter objects of its own.
   */
  private windowLimiters(quota: ClientQuota): WindowTrio {
    const key = `${quota.minute}:${quota.hour}:${quota.day}`;
    let trio = this.quotas.get(key);
    if (!trio) {
      trio = windows.map(({ name, seconds }) => ({ window: name, limit: quota[name], limiter: this.limiter(`rl:${name}`, quota[name], seconds) })) as WindowTrio;
      this.quotas.set(key, trio);
    }
    return trio;
  }

  private consumeWindow({ window, limit, limiter }: WindowLimiter, key: string, points: number): Promise<WindowState> {
    return this.consumeOne(limiter, key, points).then((res) => ({
      window,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      msBeforeNext: res.msBeforeNext,
      refused: res.refused,
      counted: res.counted,
    }));
  }

  async close(): Promise<void> {
    if (this.redis) this.redis.disconnect();
  }

  private async consumeOne(
    limiter: RateLimiterAbstract,
    key: string,
    points: number,
  ): Promise<{ remainingPoints: number; msBeforeNext: number; refused: boolean; counted: boolean }> {
    try {
      const res = await limiter.consume(key, points);
      return { remainingPoints: res.remainingPoints, msBeforeNext: res.msBeforeNext, refused: false, counted: true };
    } catch (rejection) {
      // A store failure is an Error, not a refusal: never turn an outage into 429s. A refusal
      // counted the points all the same; what remained before them is what the client has left
      // should they be given back.
      if (rejection instanceof RateLimiterRes) {
        const before = Math.max(0, limiter.points - (rejection.consumedPoints - points));
        return { remainingPoints: before, msBeforeNext: rejection.msBeforeNext, refused: true, counted: true };
      }
      this.logger.error({ err: rejection }, 'rate limiter failure; request allowed');
      return { remainingPoints: 1, msBeforeNext: 0, refused: false, counted: false };
    }
  }

  private limiter(prefix: string, points: number, duration: number): RateLimiterAbstract {
    const key = `${prefix}:${points}:${duration}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const memory = new RateLimiterMemory({ keyPrefix: prefix, points, duration });
      limiter = this.redis
        ? new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `sb:${prefix}`, points, duration, insuranceLimiter: memory, rejectIfRedisNotReady: true })
        : memory;
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

const TOKEN_FAILURE_WINDOW_SECONDS = 900;

export interface TokenFailureKeys {
  address: string;
  clientAddress: string;
  client: string;
}

/**
 * The failure limiters' keys: fixed-size HMACs (128 bits) of the caller's values under the
 * server key, never the values. A client id may be a long attacker-chosen string, and a key
 * lives for the whole window in memory or Redis; keyed, the keys in Redis reveal no client id
 * or address, and deployments (or test servers) sharing one Redis do not count each other's
 * failures.
 */
export function tokenFailureKeys(serverKey: Buffer, clientId: string, address: string): TokenFailureKeys {
  const key = (...parts: string[]) => createHmac('sha256', serverKey).update(parts.join('\u0000')).digest('base64url').slice(0, 22);
  return { address: key('address', address), clientAddress: key('client-address', clientId, address), client: key('client', clientId) };
}

function retryAfterOf(refusing: ({ msBeforeNext: number } | null)[]): number | undefined {
  const worst = refusing.reduce<number | undefined>((max, res) => (res ? Math.max(max ?? 0, res.msBeforeNext) : max), undefined);
  return worst === undefined ? undefined : Math.max(1, Math.ceil(worst / 1000));
}

function statusOf(state: WindowState): RateStatus {
  return { window: state.window, limit: state.limit, remaining: state.remaining, resetAt: Date.now() + state.msBeforeNext };
}

function headersFor(state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    // The windows run on real time, so their reset does too.
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    'X-RateLimit-Window': state.window,
  };
}
