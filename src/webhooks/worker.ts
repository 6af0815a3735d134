import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { and, asc, eq, inArray, isNotNull, isNull, lte, not, notInArray, or, sql } from 'drizzle-orm';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.js';
import type { Database, Db, Queryable, Tx } from '../db/client.js';
import { drizzleOnPglite } from '../db/pglite-driver.js';
import * as schema from '../db/schema.js';
import type { Logger } from '../log.js';
import { webhookDeliveries as deliveryMetric, webhookSendsInFlight } from '../observability/metrics.js';
import { scheduledCallReminders, scheduledCalls } from '../scheduling/tables.js';
import { systemClock } from '../time/clock.js';
import { recordEvents, systemActor } from '../events/log.js';
import { callRecord, callResource, enqueueMessages, reminderRecord } from './outbox.js';
import { disableEndpoint, type DisableCause } from './service.js';
import { assertPublicUrl, guardedLookup, UnsafeUrlError } from './ssrf.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';

// The webhook worker: sends due reminders as `scheduled.reminder` deliveries,
// then sends due deliveries, signed per Standard Webhooks, at least once:
// - a delivery is claimed under FOR UPDATE SKIP LOCKED and leased (locked_until, lease_id) in a
//   transaction that commits before the POST, so no two workers or instances send one attempt;
// - the result is written only by the lease holder; a lease that expires (a crash mid-send) lets
//   any worker claim the delivery again, with the same webhook-id;
// - only 2xx succeeds; 410 disables the subscription; otherwise the next attempt follows the
//   retry schedule (+-10% jitter, at least Retry-After up to 24 h) until the last one fails for good;
// - WEBHOOK_DISABLE_AFTER_FAILURES deliveries in a row failing for good disable the subscription
//   too, and either way `webhook_endpoint.disabled` goes to the app's other endpoints;
// - during a secret rotation's overlap each attempt carries a signature with each secret;
// - a disabled subscription's pending deliveries wait (flagged `paused`, not claimed) until it is
//   enabled again;
// - sends run concurrently, up to WEBHOOK_CONCURRENCY, at most WEBHOOK_APP_CONCURRENCY for one app
//   and WEBHOOK_ENDPOINT_CONCURRENCY for one endpoint: a claim leaves out the apps and endpoints
//   at their limit, so a receiver that never answers holds only its own share, and a slot freed
//   is filled at once (no waiting for the rest of a batch); `scheduled.reminder` goes first.
// Time comes from `clock` (or runOnce's argument), so tests drive the schedule without sleeping.

export type WorkerConfig = Pick<
  Config,
  | 'WEBHOOK_POLL_MS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_BATCH'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_ALLOW_PRIVATE'
  | 'SHUTDOWN_GRACE_MS'
  | 'WEBHOOK_CONCURRENCY'
  | 'WEBHOOK_APP_CONCURRENCY'
  | 'WEBHOOK_ENDPOINT_CONCURRENCY'
  | 'WEBHOOK_DISABLE_AFTER_FAILURES'
>;

export interface WorkerOptions {
  database: Database;
  logger: Logger;
  config: WorkerConfig;
  clock?: () => Date;
  random?: () => number;
}

export interface TickResult {
  reminders: number;
  claimed: number;
  succeeded: number;
  retrying: number;
  failed: number;
}

/**
 * What a failed attempt records in `lastError`: a coarse category, never the socket's message
 * (which named resolved addresses and told one refusal from another, letting a tenant map hosts
 * and ports). The full error goes to the log.
 */
export type FailureCategory =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'unreachable'
  | 'dns_error'
  | 'tls_error'
  | 'address_refused'
  | 'network_error'
  | 'interrupted'
  | 'subscription_deleted';

type Outcome = { status: number; retryAfter?: string } | { error: FailureCategory; interrupted?: boolean };

interface Claimed {
  delivery: WebhookDeliveryRow;
  subscription: WebhookSubscriptionRow | undefined;
}

/** The limits a claim fills up to, and what is already in flight. */
interface Room {
  free: number;
  apps: ReadonlyMap<string, number>;
  endpoints: ReadonlyMap<string, number>;
  /** Apps at their limit and subscriptions whose endpoint is: left out of the scan. */
  fullApps: string[];
  fullSubscriptions: string[];
}

/** The unit of the per-endpoint limit: scheme, host and port (subscriptions to one receiver share it). */
export function endpointOf(rawUrl: string): string {
  try {
    const url = new URL(rawUrl);
    return `${url.protocol}//${url.host}`;
  } catch {
    return rawUrl;
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** The category of a failed connection or request. */
export function failureCategory(error: NodeJS.ErrnoException): FailureCategory {
  if (error instanceof InterruptedError) return 'interrupted';
  if (error instanceof SendTimeout) return 'timeout';
  const code = error.code ?? '';
  if (code === 'EWEBHOOKPRIVATE') return 'address_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA' || code === 'ENODATA') return 'dns_error';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED' || error.message === 'socket hang up') return 'connection_reset';
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN' || code === 'ENETDOWN') return 'unreachable';
  if (TLS_CODE.test(code)) return 'tls_error';
  return 'network_error';
}

const REMINDER_BATCH = 100;
/**
 * The longest Retry-After honoured: an endpoint may ask for more time than the retry schedule
 * gives (docs/realtime.md), but not park a delivery indefinitely (or past what a date can hold).
 */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** How long a response body is read (and dropped) after its status decided the attempt. */
const RESPONSE_DRAIN_MS = 1000;
/** Due rows a fair claim looks at per slot it may fill, to find ones of apps below their limit. */
const CANDIDATES_PER_SLOT = 4;
const USER_AGENT = 'Switchboard-Webhooks/1.0';

/**
 * The worker's own query handle on the shared connection (pool): background statements do not
 * show in `database.queries`, the per-request statement count tests assert on.
 */
function backgroundDb(database: Database): Db {
  if (database.pg) return drizzlePostgres({ client: database.pg, schema }) as unknown as Db;
  if (database.pglite) return drizzleOnPglite(database.pglite);
  return database.db;
}

/** Seconds or an HTTP date, as milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * The claim's scan: due, unleased deliveries of enabled subscriptions, oldest due first, locked.
 * `not paused` is written as the due index's predicate says it, so the planner can use the
 * index, which holds no delivery of a disabled subscription.
 */
export function dueDeliveries(q: Queryable, now: Date, limit: number, without: { apps?: string[]; subscriptions?: string[] } = {}) {
  const d = webhookDeliveries;
  return q
    .select({ id: d.id, appId: d.appId, subscriptionId: d.subscriptionId, eventType: d.eventType })
    .from(d)
    .where(
      and(
        eq(d.status, 'pending'),
        not(d.paused),
        lte(d.nextAttemptAt, now),
        or(isNull(d.lockedUntil), lte(d.lockedUntil, now)),
        without.apps?.length ? notInArray(d.appId, without.apps) : undefined,
        without.subscriptions?.length ? notInArray(d.subscriptionId, without.subscriptions) : undefined,
      ),
    )
    .orderBy(asc(d.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true });
}

/** A send under way: what it counts against. */
interface Sending {
  appId: string;
  subscriptionId: string;
  endpoint: string;
}

export class WebhookWorker {
  private readonly db: Db;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** Passes and sends under way (the poller's or a direct runOnce): shutdown waits for them. */
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;
  private readonly inFlight = new Set<http.ClientRequest>();
  /** Sends under way, counted per app and endpoint (entries removed at zero: at most WEBHOOK_CONCURRENCY). */
  private readonly sending = new Set<Sending>();
  private readonly byApp = new Map<string, number>();
  private readonly byEndpoint = new Map<string, number>();
  /**
   * Subscriptions a claim found behind an endpoint at its limit, left out of the next scans
   * until a send to that endpoint ends (dropped then: held only while the endpoint is full).
   */
  private readonly behindFull = new Map<string, Set<string>>();
  /** Claims run one at a time in a process, so two never fill the same free slots. */
  private claiming: Promise<unknown> = Promise.resolve();
  private filling = false;
  private refill = false;
  /** The last fill may have left due deliveries behind (limits or slots): a finished send fills again. */
  private backlog = false;
  /** performance.now() of the last look for reminders: a real interval even when the clock is fixed. */
  private lastReminders = -Infinity;

  constructor(private readonly options: WorkerOptions) {
    this.db = backgroundDb(options.database);
    this.clock = options.clock ?? systemClock.now;
    this.random = options.random ?? Math.random;
    // Long enough for the send, its timeout and the result's write; a crash frees it after that.
    this.leaseMs = options.config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
  }

  get maxAttempts(): number {
    return this.options.config.WEBHOOK_RETRY_SCHEDULE.length + 1;
  }

  /** Sends under way in this process. */
  get sendsInFlight(): number {
    return this.sending.size;
  }

  /**
   * Polls every WEBHOOK_POLL_MS (0: never; deliveries then wait for a worker elsewhere), and
   * again as soon as a send finishes while due deliveries were left for want of a slot.
   */
  start(): void {
    if (this.options.config.WEBHOOK_POLL_MS <= 0 || this.timer || this.stopped) return;
    this.schedule(this.options.config.WEBHOOK_POLL_MS);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.options.config.WEBHOOK_POLL_MS <= 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.fill();
    }, delayMs);
  }

  /** Claims into the free slots and starts those sends, without waiting for them. */
  private async fill(): Promise<void> {
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.filling = true;
    const pass = (async () => {
      do {
        this.refill = false;
        const now = this.clock();
        // Reminders are looked for once per poll interval, not after every finished send.
        if (performance.now() - this.lastReminders >= this.options.config.WEBHOOK_POLL_MS) {
          this.lastReminders = performance.now();
          await this.dispatchReminders(now);
          await this.eraseExpiredSecrets(now);
        }
        await this.claimAndSend(now, this.clock);
      } while (this.refill && !this.stopped);
    })();
    this.running.add(pass);
    try {
      await pass;
    } catch (error) {
      this.options.logger.error({ err: error }, 'webhook worker poll failed');
    } finally {
      this.running.delete(pass);
      this.filling = false;
    }
    this.schedule(this.backlog && this.sending.size < this.options.config.WEBHOOK_CONCURRENCY ? 0 : this.options.config.WEBHOOK_POLL_MS);
  }

  /**
   * Stops polling and lets in-flight sends finish within the grace period; sends still open
   * then are cut off and their deliveries stay pending (due at once) for the next start.
   */
  async stop(graceMs = this.options.config.SHUTDOWN_GRACE_MS): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running.size === 0) return;
    // A claim still running when stop() began starts its sends after this point: wait again
    // until nothing is left (or the grace period ends), not only for what ran at the start.
    const settled = (async () => {
      while (this.running.size > 0) await Promise.allSettled([...this.running]);
    })();
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([settled.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    while (expired && this.running.size > 0) {
      for (const req of this.inFlight) req.destroy(new InterruptedError());
      await Promise.allSettled([...this.running]);
    }
  }

  /** One pass: due reminders into the outbox, then the due deliveries that fit the limits, sent. */
  runOnce(now?: Date): Promise<TickResult> {
    const pass = this.pass(now);
    this.running.add(pass);
    const forget = () => void this.running.delete(pass);
    pass.then(forget, forget);
    return pass;
  }

  private async pass(now: Date | undefined): Promise<TickResult> {
    const time = now ? () => now : this.clock;
    const reminders = await this.dispatchReminders(time());
    await this.eraseExpiredSecrets(time());
    const sends = await this.claimAndSend(time(), time);
    const outcomes = await Promise.all(sends);
    return {
      reminders,
      claimed: sends.length,
      succeeded: outcomes.filter((o) => o === 'succeeded').length,
      retrying: outcomes.filter((o) => o === 'pending').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  /** Claims what fits the free slots (one claim at a time per process) and starts each send. */
  private claimAndSend(now: Date, time: () => Date): Promise<Promise<'succeeded' | 'pending' | 'failed'>[]> {
    const turn = this.claiming.then(async () => {
      const room = this.room();
      if (room.free <= 0) {
        this.backlog = true;
        return [];
      }
      const { claimed, leftBehind } = await this.claimFair(now, room);
      this.backlog = leftBehind;
      return claimed.map((c) => this.send(c, time));
    });
    this.claiming = turn.catch(() => undefined);
    return turn;
  }

  private room(): Room {
    const { WEBHOOK_CONCURRENCY, WEBHOOK_APP_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY } = this.options.config;
    const fullEndpoints = new Set([...this.byEndpoint].filter(([, n]) => n >= WEBHOOK_ENDPOINT_CONCURRENCY).map(([e]) => e));
    return {
      free: WEBHOOK_CONCURRENCY - this.sending.size,
      apps: this.byApp,
      endpoints: this.byEndpoint,
      fullApps: [...this.byApp].filter(([, n]) => n >= WEBHOOK_APP_CONCURRENCY).map(([a]) => a),
      fullSubscriptions: [
        ...new Set([
          ...[...this.sending].filter((s) => fullEndpoints.has(s.endpoint)).map((s) => s.subscriptionId),
          ...[...this.behindFull].filter(([e]) => fullEndpoints.has(e)).flatMap(([, ids]) => [...ids]),
        ]),
      ],
    };
  }

  /** One attempt, counted against its app and endpoint while it runs. */
  private send(claimed: Claimed, time: () => Date): Promise<'succeeded' | 'pending' | 'failed'> {
    const entry: Sending = {
      appId: claimed.delivery.appId,
      subscriptionId: claimed.delivery.subscriptionId,
      endpoint: claimed.subscription ? endpointOf(claimed.subscription.url) : '',
    };
    this.sending.add(entry);
    webhookSendsInFlight.set(this.sending.size);
    bump(this.byApp, entry.appId, 1);
    bump(this.byEndpoint, entry.endpoint, 1);
    const attempt = this.attempt(claimed, time).finally(() => {
      this.sending.delete(entry);
      webhookSendsInFlight.set(this.sending.size);
      bump(this.byApp, entry.appId, -1);
      bump(this.byEndpoint, entry.endpoint, -1);
      this.behindFull.delete(entry.endpoint);
      this.running.delete(attempt);
      if (this.backlog && !this.stopped && this.timer !== undefined) this.schedule(0);
    });
    this.running.add(attempt);
    // The poller logs; a direct runOnce's caller sees the rejection.
    attempt.catch((error: unknown) => this.options.logger.error({ err: error, deliveryId: claimed.delivery.id }, 'webhook attempt failed'));
    return attempt;
  }

  /**
   * Due pending reminders become `scheduled.reminder` deliveries and are marked sent, in one
   * transaction. A reminder whose call is no longer scheduled, or has started, is cancelled.
   */
  async dispatchReminders(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      const due = await tx
        .select()
        .from(scheduledCallReminders)
        .where(and(eq(scheduledCallReminders.status, 'pending'), lte(scheduledCallReminders.dueAt, now)))
        .orderBy(asc(scheduledCallReminders.dueAt))
        .limit(REMINDER_BATCH)
        .for('update', { skipLocked: true });
      if (due.length === 0) return 0;
      const calls = await tx
        .select()
        .from(scheduledCalls)
        .where(inArray(scheduledCalls.id, [...new Set(due.map((r) => r.callId))]));
      const callById = new Map(calls.map((c) => [c.id, c]));
      const live = due.filter((r) => {
        const call = callById.get(r.callId);
        return call !== undefined && call.status === 'scheduled' && call.scheduledAt > now;
      });
      const stale = due.filter((r) => !live.includes(r));
      const mark = async (ids: string[], status: 'sent' | 'cancelled') => {
        if (ids.length > 0) await tx.update(scheduledCallReminders).set({ status, updatedAt: now }).where(inArray(scheduledCallReminders.id, ids));
      };
      await mark(
        live.map((r) => r.id),
        'sent',
      );
      await mark(
        stale.map((r) => r.id),
        'cancelled',
      );
      let deliveries = 0;
      for (const appId of new Set(live.map((r) => r.appId))) {
        const messages = live
          .filter((r) => r.appId === appId)
          .map((r) => ({ type: 'scheduled.reminder' as const, at: now, data: { call: callRecord(callById.get(r.callId)!), reminder: reminderRecord(r) } }));
        deliveries += await enqueueMessages(tx, appId, messages);
        const sent = live.filter((r) => r.appId === appId);
        await recordEvents(tx, appId, systemActor, sent.map((r) => ({ type: 'scheduled_call.reminder', resource: callResource(callById.get(r.callId)!), subjectId: r.callId })), now);
      }
      if (live.length > 0) this.options.logger.debug({ reminders: live.length, deliveries }, 'reminders dispatched');
      return live.length;
    });
  }

  /**
   * Claims up to WEBHOOK_BATCH due deliveries under a lease committed before any is sent, with
   * no limit per app or endpoint (`claimFair` is the poller's). Those of a disabled subscription
   * (paused, or after a 410) are left alone: they wait, attempts untouched, until it is enabled
   * again. They are flagged `paused` when the subscription's status changes, and the due index
   * holds only unflagged ones, so a poll reads about a batch of rows however many wait. One
   * written while its subscription was being disabled (the event's transaction still read it
   * active) is caught here and flagged, unsent.
   */
  async claim(now: Date): Promise<Claimed[]> {
    const { WEBHOOK_BATCH } = this.options.config;
    const all: Room = { free: WEBHOOK_BATCH, apps: new Map(), endpoints: new Map(), fullApps: [], fullSubscriptions: [] };
    return (await this.claimWithin(now, all, WEBHOOK_BATCH, Infinity, Infinity)).claimed;
  }

  /**
   * The poller's claim: up to the free slots (and WEBHOOK_BATCH), leaving out apps and endpoints
   * at their limit, reminders first. The scan reads a few rows per slot, oldest due first, and
   * keeps those that fit; the rest are unlocked when the claim commits.
   */
  private claimFair(now: Date, room: Room): Promise<{ claimed: Claimed[]; leftBehind: boolean }> {
    const { WEBHOOK_BATCH, WEBHOOK_APP_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY } = this.options.config;
    const slots = Math.min(room.free, WEBHOOK_BATCH);
    return this.claimWithin(now, room, Math.min(500, slots * CANDIDATES_PER_SLOT), WEBHOOK_APP_CONCURRENCY, WEBHOOK_ENDPOINT_CONCURRENCY, slots);
  }

  private async claimWithin(
    now: Date,
    room: Room,
    scan: number,
    perApp: number,
    perEndpoint: number,
    slots = scan,
  ): Promise<{ claimed: Claimed[]; leftBehind: boolean }> {
    const d = webhookDeliveries;
    const s = webhookSubscriptions;
    return this.db.transaction(async (tx) => {
      const due = await dueDeliveries(tx, now, scan, { apps: room.fullApps, subscriptions: room.fullSubscriptions });
      if (due.length === 0) return { claimed: [], leftBehind: false };
      const subscriptions = await tx
        .select()
        .from(s)
        .where(inArray(s.id, [...new Set(due.map((r) => r.subscriptionId))]));
      const byId = new Map(subscriptions.map((row) => [row.id, row]));
      const disabled = due.filter((r) => byId.get(r.subscriptionId)?.status === 'disabled').map((r) => r.id);
      if (disabled.length > 0) await tx.update(d).set({ paused: true }).where(inArray(d.id, disabled));
      // Reminders first (a stable sort keeps due order otherwise), then each app and endpoint
      // up to its limit, counting what is already in flight.
      const candidates = due.filter((r) => !disabled.includes(r.id)).sort((a, b) => Number(b.eventType === 'scheduled.reminder') - Number(a.eventType === 'scheduled.reminder'));
      const apps = new Map(room.apps);
      const endpoints = new Map(room.endpoints);
      const ready: string[] = [];
      for (const row of candidates) {
        if (ready.length >= slots) break;
        const subscription = byId.get(row.subscriptionId);
        const endpoint = subscription ? endpointOf(subscription.url) : '';
        if ((apps.get(row.appId) ?? 0) >= perApp) continue;
        if (subscription && (endpoints.get(endpoint) ?? 0) >= perEndpoint) {
          if ((room.endpoints.get(endpoint) ?? 0) >= perEndpoint) {
            const behind = this.behindFull.get(endpoint) ?? new Set<string>();
            this.behindFull.set(endpoint, behind.add(row.subscriptionId));
          }
          continue;
        }
        bump(apps, row.appId, 1);
        if (subscription) bump(endpoints, endpoint, 1);
        ready.push(row.id);
      }
      const leftBehind = ready.length < candidates.length || due.length === scan;
      if (ready.length === 0) return { claimed: [], leftBehind };
      const rows = await tx
        .update(d)
        .set({
          lockedUntil: new Date(now.getTime() + this.leaseMs),
          leaseId: randomUUID(),
          attempts: sql`${d.attempts} + 1`,
          updatedAt: now,
        })
        .where(inArray(d.id, ready))
        .returning();
      const order = new Map(ready.map((id, i) => [id, i]));
      rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
      return { claimed: rows.map((delivery) => ({ delivery, subscription: byId.get(delivery.subscriptionId) })), leftBehind };
    });
  }

  private async attempt({ delivery, subscription }: Claimed, time: () => Date): Promise<'succeeded' | 'pending' | 'failed'> {
    // Deleted: its deliveries went with it (the cascade), this one too, so nothing is sent.
    if (!subscription) return this.record(delivery, time(), { kind: 'failed', error: 'subscription_deleted', counts: false });
    // Disabled: put it back unsent. (The claim flags the deliveries of a subscription it reads as
    // disabled instead of handing them over; this guards the copy it did hand over.)
    if (subscription.status !== 'active') return this.putBack(delivery, time());
    const { type, timestamp, data } = delivery.payload;
    const body = JSON.stringify({ type, timestamp, data });
    const sentAt = time();
    const outcome = await this.post(subscription.url, body, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatures(subscription, delivery.id, sentAt, body),
    });
    const now = time();
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      return this.record(delivery, now, { kind: 'succeeded', code: outcome.status, resetFailures: subscription.consecutiveFailures > 0 });
    }
    if ('status' in outcome && outcome.status === 410) {
      await this.disable(subscription, { reason: 'gone' }, now);
      return this.record(delivery, now, { kind: 'failed', code: 410, error: 'http_410', counts: false });
    }
    const code = 'status' in outcome ? outcome.status : null;
    const error = 'status' in outcome ? `http_${outcome.status}` : outcome.error;
    if ('interrupted' in outcome && outcome.interrupted) {
      // Cut off by shutdown: not the receiver's fault, due again at the next start.
      return this.record(delivery, now, { kind: 'retry', code, error, at: now });
    }
    if (delivery.attempts >= this.maxAttempts) return this.record(delivery, now, { kind: 'failed', code, error, counts: true });
    const schedule = this.options.config.WEBHOOK_RETRY_SCHEDULE;
    const base = schedule[Math.min(delivery.attempts, schedule.length) - 1]!;
    const jittered = base * (0.9 + 0.2 * this.random());
    // Retry-After lengthens the wait, even beyond the schedule's longest delay, up to the cap.
    const requested = 'status' in outcome ? retryAfterMs(outcome.retryAfter, now) : undefined;
    const delay = Math.max(jittered, Math.min(requested ?? 0, MAX_RETRY_AFTER_MS));
    return this.record(delivery, now, { kind: 'retry', code, error, at: new Date(now.getTime() + Math.round(delay)) });
  }

  /**
   * Writes an attempt's result, only if this worker still holds the lease. A delivery failing for
   * good counts against its subscription in the same transaction (disabling it at the limit); a
   * success after failures resets the count.
   */
  private async record(
    delivery: WebhookDeliveryRow,
    now: Date,
    result:
      | { kind: 'succeeded'; code: number; resetFailures: boolean }
      | { kind: 'failed'; code?: number | null; error: string; counts: boolean }
      | { kind: 'retry'; code: number | null; error: string; at: Date },
  ): Promise<'succeeded' | 'pending' | 'failed'> {
    const released = { lockedUntil: null, leaseId: null, updatedAt: now };
    const set =
      result.kind === 'succeeded'
        ? { ...released, status: 'succeeded', lastResponseCode: result.code, lastError: null, deliveredAt: now }
        : result.kind === 'failed'
          ? { ...released, status: 'failed', lastResponseCode: result.code ?? null, lastError: result.error }
          : { ...released, status: 'pending', lastResponseCode: result.code, lastError: result.error, nextAttemptAt: result.at };
    const write = (q: Queryable) =>
      q
        .update(webhookDeliveries)
        .set(set)
        .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.leaseId, delivery.leaseId!)))
        .returning({ id: webhookDeliveries.id });
    const counted = (result.kind === 'failed' && result.counts) || (result.kind === 'succeeded' && result.resetFailures);
    const updated = counted
      ? await this.db.transaction(async (tx) => {
          const rows = await write(tx);
          if (rows.length > 0) await this.countFailure(tx, delivery, result.kind === 'failed', now);
          return rows;
        })
      : await write(this.db);
    if (updated.length === 0) this.options.logger.warn({ deliveryId: delivery.id }, 'webhook lease lost before the result was written');
    deliveryMetric.inc({ outcome: result.kind === 'succeeded' ? 'delivered' : result.kind === 'failed' ? 'failed' : 'retried' });
    this.options.logger.debug({ deliveryId: delivery.id, attempt: delivery.attempts, result: result.kind }, 'webhook attempt');
    return result.kind === 'retry' ? 'pending' : result.kind;
  }

  /** One more delivery failed for good (or, `failed` false, one succeeded): the subscription's count, and the disable at the limit. */
  private async countFailure(tx: Tx, delivery: WebhookDeliveryRow, failed: boolean, now: Date): Promise<void> {
    const s = webhookSubscriptions;
    const [row] = await tx
      .update(s)
      .set({ consecutiveFailures: failed ? sql`${s.consecutiveFailures} + 1` : 0 })
      .where(eq(s.id, delivery.subscriptionId))
      .returning({ failures: s.consecutiveFailures, status: s.status });
    const limit = this.options.config.WEBHOOK_DISABLE_AFTER_FAILURES;
    if (!failed || !row || row.status !== 'active' || limit === 0 || row.failures < limit) return;
    const cause = { reason: 'consecutive_failures', failures: row.failures } as const;
    if (await disableEndpoint(tx, { appId: delivery.appId, id: delivery.subscriptionId }, cause, now)) {
      this.options.logger.warn({ subscriptionId: delivery.subscriptionId, failures: row.failures }, 'webhook subscription disabled: deliveries keep failing');
    }
  }

  /** Releases a claimed delivery as it was: same due time, the claim's attempt given back. */
  private async putBack(delivery: WebhookDeliveryRow, now: Date): Promise<'pending'> {
    const d = webhookDeliveries;
    await this.db
      .update(d)
      .set({ lockedUntil: null, leaseId: null, attempts: sql`${d.attempts} - 1`, updatedAt: now })
      .where(and(eq(d.id, delivery.id), eq(d.leaseId, delivery.leaseId!)));
    return 'pending';
  }

  /**
   * 410 Gone: the endpoint asks to stop, so the subscription is disabled. Like a pause, this
   * flags its other pending deliveries in the same transaction, and they wait (claim skips them):
   * enabling it again resumes them; deleting it drops them.
   */
  private async disable(subscription: WebhookSubscriptionRow, cause: DisableCause, now: Date): Promise<void> {
    await this.db.transaction((tx) => disableEndpoint(tx, subscription, cause, now));
    this.options.logger.warn({ subscriptionId: subscription.id }, 'webhook subscription disabled: the endpoint answered 410');
  }

  /** Erases previous secrets whose overlap has ended (the partial index holds only those kept). */
  async eraseExpiredSecrets(now: Date): Promise<number> {
    const s = webhookSubscriptions;
    const rows = await this.db
      .update(s)
      .set({ previousSecret: null, previousSecretExpiresAt: null })
      .where(and(isNotNull(s.previousSecretExpiresAt), lte(s.previousSecretExpiresAt, now)))
      .returning({ id: s.id });
    return rows.length;
  }

  /**
   * POSTs with the SSRF rule applied to the address actually connected to, and a timeout for
   * the response's status line and headers. The status decides the attempt: the body is read
   * (up to a cap, for a short while) only to be dropped, so a receiver that answers 200 and then
   * hangs has still received the delivery.
   */
  private async post(rawUrl: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    const allowPrivate = this.options.config.WEBHOOK_ALLOW_PRIVATE;
    let url: URL;
    try {
      url = await assertPublicUrl(rawUrl, allowPrivate);
    } catch (error) {
      this.options.logger.info({ err: error }, 'webhook address refused');
      return { error: error instanceof UnsafeUrlError && /does not resolve/.test(error.message) ? 'dns_error' : 'address_refused' };
    }
    const timeoutMs = this.options.config.WEBHOOK_TIMEOUT_MS;
    return new Promise<Outcome>((resolve) => {
      const transport = url.protocol === 'https:' ? https : http;
      const req = transport.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(allowPrivate) as never,
        agent: false,
      });
      this.inFlight.add(req);
      const timer = setTimeout(() => req.destroy(new SendTimeout()), timeoutMs);
      let settled = false;
      const done = (outcome: Outcome) => {
        clearTimeout(timer);
        this.inFlight.delete(req);
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      req.on('response', (res) => {
        const retryAfter = res.headers['retry-after'];
        done({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
        let read = 0;
        const drain = setTimeout(() => res.destroy(), RESPONSE_DRAIN_MS);
        drain.unref();
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => clearTimeout(drain));
        res.on('error', () => {});
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (settled) return;
        const category = failureCategory(error);
        if (category !== 'timeout' && category !== 'interrupted') this.options.logger.info({ err: error, url: url.origin }, 'webhook send failed');
        done({ error: category, interrupted: category === 'interrupted' });
      });
      req.end(body);
    });
  }
}

/**
 * `webhook-signature`: `v1,<base64>` with the current secret and, during a rotation's overlap,
 * a second one with the previous secret, space-separated (a receiver accepts either).
 */
export function signatures(subscription: Pick<WebhookSubscriptionRow, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, id: string, at: Date, body: string): string {
  const secrets = [subscription.secret];
  if (subscription.previousSecret && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > at) secrets.push(subscription.previousSecret);
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

class SendTimeout extends Error {
  constructor() {
    super('no response in time');
  }
}

class InterruptedError extends Error {
  constructor() {
    super('interrupted by shutdown');
  }
}

