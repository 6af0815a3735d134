import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

// DESIGN section 4: per client, three windows; headers surface the window with the smallest
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
}

interface WindowState {
  window: WindowName;
  limit: number;
  remaining: number;
  msBeforeNext: number;
  refused: boolean;
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
  private readonly tokenFailureLimiter: RateLimiterAbstract;

  constructor(
    private readonly config: Pick<Config, 'REDIS_URL' | 'RATE_LIMIT_MINUTE' | 'RATE_LIMIT_HOUR' | 'RATE_LIMIT_DAY' | 'TOKEN_FAILURES_PER_15MIN'>,
    private readonly logger: Logger,
  ) {
    if (config.REDIS_URL) {
      // PITFALLS (rate limits): no offline queue, so a Redis outage fails fast into the
      // in-memory insurance limiter instead of waiting out retries.
      this.redis = new Redis(config.REDIS_URL, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 2000,
        lazyConnect: false,
        // A Redis that keeps the connection open but stops answering (a hung server, a
        // half-open link) is still "ready" to ioredis: without these every request waited on
        // it for as long as the socket stayed up (an audit: minutes). A command unanswered in
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
    this.tokenFailureLimiter = this.limiter('token-failures', config.TOKEN_FAILURES_PER_15MIN, 900);
  }

  defaultQuota(): ClientQuota {
    return { minute: this.config.RATE_LIMIT_MINUTE, hour: this.config.RATE_LIMIT_HOUR, day: this.config.RATE_LIMIT_DAY };
  }

  /** Counts one request of `clientId` in all three windows. */
  async consume(clientId: string, quota: ClientQuota): Promise<RateDecision> {
    const [minute, hour, day] = this.windowLimiters(quota);
    const states = await Promise.all([this.consumeWindow(minute, clientId), this.consumeWindow(hour, clientId), this.consumeWindow(day, clientId)]);
    const refused = states.filter((s) => s.refused);
    if (refused.length > 0) {
      const worst = refused.reduce((a, b) => (b.msBeforeNext > a.msBeforeNext ? b : a));
      const retryAfter = Math.max(1, Math.ceil(worst.msBeforeNext / 1000));
      return { allowed: false, retryAfter, headers: { ...headersFor(worst), 'Retry-After': String(retryAfter) } };
    }
    // `windows` is ordered shortest first, so a strict comparison keeps the shorter on ties.
    const surfaced = states.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
    return { allowed: true, headers: headersFor(surfaced) };
  }

  /** Failed client authentications per client id, against secret guessing (DESIGN section 4). */
  async tokenAttemptsBlocked(clientId: string): Promise<number | undefined> {
    const res = await this.tokenFailureLimiter.get(clientId).catch(() => null);
    if (res && res.consumedPoints >= this.config.TOKEN_FAILURES_PER_15MIN) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return undefined;
  }

  /**
   * Counts a failed attempt. Returns Retry-After seconds when the failure is over the limit: a
   * guess checked concurrently with others that already used the budget (they all passed
   * tokenAttemptsBlocked before any failed) is answered 429, not 401, so it tells nothing.
   */
  async recordTokenFailure(clientId: string): Promise<number | undefined> {
    const res = await this.consumeOne(this.tokenFailureLimiter, clientId);
    return res.refused ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : undefined;
  }

  /**
   * The three limiters of a quota, looked up once per request (one key, one Map read): the
   * request path's rate limiting was ~6 KB of garbage a request before (bench/).
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

  private consumeWindow({ window, limit, limiter }: WindowLimiter, key: string): Promise<WindowState> {
    return this.consumeOne(limiter, key).then((res) => ({
      window,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      msBeforeNext: res.msBeforeNext,
      refused: res.refused,
    }));
  }

  async close(): Promise<void> {
    if (this.redis) this.redis.disconnect();
  }

  private async consumeOne(limiter: RateLimiterAbstract, key: string): Promise<{ remainingPoints: number; msBeforeNext: number; refused: boolean }> {
    try {
      const res = await limiter.consume(key, 1);
      return { remainingPoints: res.remainingPoints, msBeforeNext: res.msBeforeNext, refused: false };
    } catch (rejection) {
      // A store failure is an Error, not a refusal (PITFALLS): never turn an outage into 429s.
      if (rejection instanceof RateLimiterRes) return { remainingPoints: 0, msBeforeNext: rejection.msBeforeNext, refused: true };
      this.logger.error({ err: rejection }, 'rate limiter failure; request allowed');
      return { remainingPoints: 1, msBeforeNext: 0, refused: false };
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

function headersFor(state: WindowState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)),
    'X-RateLimit-Window': state.window,
  };
}
