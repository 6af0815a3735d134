import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { and, asc, eq, inArray, isNull, lte, not, or, sql } from 'drizzle-orm';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.js';
import type { Database, Db, Queryable } from '../db/client.js';
import { drizzleOnPglite } from '../db/pglite-driver.js';
import * as schema from '../db/schema.js';
import type { Logger } from '../log.js';
import { scheduledCallReminders, scheduledCalls } from '../scheduling/tables.js';
import { callRecord, enqueueMessages, reminderRecord } from './outbox.js';
import { changeSubscriptionStatus } from './service.js';
import { assertPublicUrl, guardedLookup } from './ssrf.js';
import { webhookDeliveries, webhookSubscriptions, type WebhookDeliveryRow, type WebhookSubscriptionRow } from './tables.js';

// The webhook worker (DESIGN section 7): sends due reminders as `scheduled.reminder` deliveries,
// then sends due deliveries, signed per Standard Webhooks, at least once:
// - a delivery is claimed under FOR UPDATE SKIP LOCKED and leased (locked_until, lease_id) in a
//   transaction that commits before the POST, so no two workers or instances send one attempt;
// - the result is written only by the lease holder; a lease that expires (a crash mid-send) lets
//   any worker claim the delivery again, with the same webhook-id;
// - only 2xx succeeds; 410 disables the subscription; otherwise the next attempt follows the
//   retry schedule (+-10% jitter, at least Retry-After up to 24 h) until the last one fails for good;
// - a disabled subscription's pending deliveries wait (flagged `paused`, not claimed) until it is
//   enabled again.
// Time comes from `clock` (or runOnce's argument), so tests drive the schedule without sleeping.

export type WorkerConfig = Pick<
  Config,
  'WEBHOOK_POLL_MS' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_BATCH' | 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_ALLOW_PRIVATE' | 'SHUTDOWN_GRACE_MS'
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

type Outcome = { status: number; retryAfter?: string } | { error: string; interrupted?: boolean };

interface Claimed {
  delivery: WebhookDeliveryRow;
  subscription: WebhookSubscriptionRow | undefined;
}

const REMINDER_BATCH = 100;
/**
 * The longest Retry-After honoured: an endpoint may ask for more time than the retry schedule
 * gives (README), but not park a delivery indefinitely (or past what a date can hold).
 */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const MAX_RESPONSE_BYTES = 64 * 1024;
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
export function dueDeliveries(q: Queryable, now: Date, limit: number) {
  const d = webhookDeliveries;
  return q
    .select({ id: d.id, subscriptionId: d.subscriptionId })
    .from(d)
    .where(and(eq(d.status, 'pending'), not(d.paused), lte(d.nextAttemptAt, now), or(isNull(d.lockedUntil), lte(d.lockedUntil, now))))
    .orderBy(asc(d.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true });
}

export class WebhookWorker {
  private readonly db: Db;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** Passes under way (the poller's or a direct runOnce): shutdown waits for them. */
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(private readonly options: WorkerOptions) {
    this.db = backgroundDb(options.database);
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    // Long enough for the send, its timeout and the result's write; a crash frees it after that.
    this.leaseMs = options.config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
  }

  get maxAttempts(): number {
    return this.options.config.WEBHOOK_RETRY_SCHEDULE.length + 1;
  }

  /** Polls every WEBHOOK_POLL_MS (0: never; deliveries then wait for a worker elsewhere). */
  start(): void {
    if (this.options.config.WEBHOOK_POLL_MS <= 0 || this.timer || this.stopped) return;
    const loop = () => {
      this.timer = setTimeout(async () => {
        let result: TickResult | undefined;
        do {
          result = await this.runOnce().catch((error: unknown) => {
            this.options.logger.error({ err: error }, 'webhook worker tick failed');
            return undefined;
          });
          // A full batch means more may be due: go again at once.
        } while (!this.stopped && result !== undefined && result.claimed >= this.options.config.WEBHOOK_BATCH);
        if (!this.stopped) loop();
      }, this.options.config.WEBHOOK_POLL_MS);
    };
    loop();
  }

  /**
   * Stops polling and lets an in-flight tick finish within the grace period; sends still open
   * then are cut off and their deliveries stay pending (due at once) for the next start.
   */
  async stop(graceMs = this.options.config.SHUTDOWN_GRACE_MS): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running.size === 0) return;
    const current = Promise.allSettled([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([current.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (expired) {
      for (const req of this.inFlight) req.destroy(new InterruptedError());
      await current;
    }
  }

  /** One pass: due reminders into the outbox, then one batch of due deliveries sent. */
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
    const claimed = await this.claim(time());
    const outcomes = await Promise.all(claimed.map((c) => this.attempt(c, time)));
    return {
      reminders,
      claimed: claimed.length,
      succeeded: outcomes.filter((o) => o === 'succeeded').length,
      retrying: outcomes.filter((o) => o === 'pending').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
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
      }
      if (live.length > 0) this.options.logger.debug({ reminders: live.length, deliveries }, 'reminders dispatched');
      return live.length;
    });
  }

  /**
   * Claims up to WEBHOOK_BATCH due deliveries under a lease committed before any is sent. Those
   * of a disabled subscription (paused, or after a 410) are left alone: they wait, attempts
   * untouched, until it is enabled again. They are flagged `paused` when the subscription's
   * status changes, and the due index holds only unflagged ones, so a poll reads about a batch
   * of rows however many wait. One written while its subscription was being disabled (the
   * event's transaction still read it active) is caught here and flagged, unsent.
   */
  async claim(now: Date): Promise<Claimed[]> {
    const d = webhookDeliveries;
    const s = webhookSubscriptions;
    return this.db.transaction(async (tx) => {
      const due = await dueDeliveries(tx, now, this.options.config.WEBHOOK_BATCH);
      if (due.length === 0) return [];
      const subscriptions = await tx
        .select()
        .from(s)
        .where(inArray(s.id, [...new Set(due.map((r) => r.subscriptionId))]));
      const byId = new Map(subscriptions.map((row) => [row.id, row]));
      const disabled = due.filter((r) => byId.get(r.subscriptionId)?.status === 'disabled').map((r) => r.id);
      if (disabled.length > 0) await tx.update(d).set({ paused: true }).where(inArray(d.id, disabled));
      const ready = due.filter((r) => !disabled.includes(r.id)).map((r) => r.id);
      if (ready.length === 0) return [];
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
      return rows.map((delivery) => ({ delivery, subscription: byId.get(delivery.subscriptionId) }));
    });
  }

  private async attempt({ delivery, subscription }: Claimed, time: () => Date): Promise<'succeeded' | 'pending' | 'failed'> {
    // Deleted: its deliveries went with it (the cascade), this one too, so nothing is sent.
    if (!subscription) return this.record(delivery, time(), { kind: 'failed', error: 'the subscription was deleted' });
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
      'webhook-signature': new Webhook(subscription.secret).sign(delivery.id, sentAt, body),
    });
    const now = time();
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      return this.record(delivery, now, { kind: 'succeeded', code: outcome.status });
    }
    if ('status' in outcome && outcome.status === 410) {
      await this.disable(subscription, now);
      return this.record(delivery, now, { kind: 'failed', code: 410, error: 'HTTP 410 Gone: the subscription is disabled' });
    }
    const code = 'status' in outcome ? outcome.status : null;
    const error = 'status' in outcome ? `HTTP ${outcome.status}` : outcome.error;
    if ('interrupted' in outcome && outcome.interrupted) {
      // Cut off by shutdown: not the receiver's fault, due again at the next start.
      return this.record(delivery, now, { kind: 'retry', code, error, at: now });
    }
    if (delivery.attempts >= this.maxAttempts) return this.record(delivery, now, { kind: 'failed', code, error });
    const schedule = this.options.config.WEBHOOK_RETRY_SCHEDULE;
    const base = schedule[Math.min(delivery.attempts, schedule.length) - 1]!;
    const jittered = base * (0.9 + 0.2 * this.random());
    // Retry-After lengthens the wait, even beyond the schedule's longest delay, up to the cap.
    const requested = 'status' in outcome ? retryAfterMs(outcome.retryAfter, now) : undefined;
    const delay = Math.max(jittered, Math.min(requested ?? 0, MAX_RETRY_AFTER_MS));
    return this.record(delivery, now, { kind: 'retry', code, error, at: new Date(now.getTime() + Math.round(delay)) });
  }

  /** Writes an attempt's result, only if this worker still holds the lease. */
  private async record(
    delivery: WebhookDeliveryRow,
    now: Date,
    result: { kind: 'succeeded'; code: number } | { kind: 'failed'; code?: number | null; error: string } | { kind: 'retry'; code: number | null; error: string; at: Date },
  ): Promise<'succeeded' | 'pending' | 'failed'> {
    const released = { lockedUntil: null, leaseId: null, updatedAt: now };
    const set =
      result.kind === 'succeeded'
        ? { ...released, status: 'succeeded', lastResponseCode: result.code, lastError: null, deliveredAt: now }
        : result.kind === 'failed'
          ? { ...released, status: 'failed', lastResponseCode: result.code ?? null, lastError: result.error }
          : { ...released, status: 'pending', lastResponseCode: result.code, lastError: result.error, nextAttemptAt: result.at };
    const updated = await this.db
      .update(webhookDeliveries)
      .set(set)
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.leaseId, delivery.leaseId!)))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) this.options.logger.warn({ deliveryId: delivery.id }, 'webhook lease lost before the result was written');
    this.options.logger.debug({ deliveryId: delivery.id, attempt: delivery.attempts, result: result.kind }, 'webhook attempt');
    return result.kind === 'retry' ? 'pending' : result.kind;
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
  private async disable(subscription: WebhookSubscriptionRow, now: Date): Promise<void> {
    await changeSubscriptionStatus(this.db, subscription, { status: 'disabled', disabledReason: 'the endpoint answered 410 Gone' }, now);
    this.options.logger.warn({ subscriptionId: subscription.id }, 'webhook subscription disabled: the endpoint answered 410');
  }

  /** POSTs with the SSRF rule applied to the address actually connected to, and a timeout. */
  private async post(rawUrl: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    const allowPrivate = this.options.config.WEBHOOK_ALLOW_PRIVATE;
    let url: URL;
    try {
      url = await assertPublicUrl(rawUrl, allowPrivate);
    } catch (error) {
      return { error: `refused: ${(error as Error).message}` };
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
      const timer = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
      const done = (outcome: Outcome) => {
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolve(outcome);
      };
      req.on('response', (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // The body is not used; a receiver streaming forever is cut off.
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const retryAfter = res.headers['retry-after'];
        const settle = () => done({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
        res.on('end', settle);
        res.on('close', settle);
        res.on('error', settle);
      });
      req.on('error', (error: NodeJS.ErrnoException) =>
        done({ error: error.message || error.code || 'request failed', interrupted: error instanceof InterruptedError }),
      );
      req.end(body);
    });
  }
}

class InterruptedError extends Error {
  constructor() {
    super('interrupted by shutdown');
  }
}

