import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { webhookSubscriptions } from '../../src/webhooks/tables.js';
import { retryAfterMs, WebhookWorker } from '../../src/webhooks/worker.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, subscribe, webhookTestBed } from './fixtures.js';

// After a failed attempt the next waits per the schedule, or longer when the answer carries
// Retry-After (docs/realtime.md): honoured beyond the schedule's longest delay, up to 24 h, so an
// endpoint cannot park a delivery for longer (nor push its next attempt past what a date can hold).
const bed = webhookTestBed();
const DAY_MS = 24 * 3_600_000;

/** A worker on the test server's database with a short schedule; its Math.random is 0.5 (no jitter). */
const worker = () =>
  new WebhookWorker({
    database: bed.server.runtime.database,
    logger: createLogger('silent'),
    config: { ...bed.server.runtime.config, WEBHOOK_RETRY_SCHEDULE: [2000, 2000, 2000] },
    random: () => 0.5,
  });

/** One delivery answered once with `headers`; the delay to its next attempt, in ms. */
async function delayAfter(status: number, headers: Record<string, string> | ((t0: Date) => Record<string, string>), hour: number): Promise<number> {
  const { server, receiver } = bed;
  const { tenant, a } = await schedulingTenant(server);
  await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
  await a.cancel((await a.create(booking(futureDay(8, hour)))).body.data.call.id);
  const t0 = new Date(Math.ceil(Date.now() / 1000) * 1000); // due by then; whole seconds, for HTTP dates
  receiver.reply({ status, headers: typeof headers === 'function' ? headers(t0) : headers });
  expect(await worker().runOnce(t0)).toMatchObject({ claimed: 1, retrying: 1 });
  const [row] = await deliveriesOf(server, tenant.appId);
  expect(row).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: status });
  // Its deliveries go with it: the next call's worker pass claims only its own.
  await server.runtime.database.db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.appId, tenant.appId));
  return row!.nextAttemptAt.getTime() - t0.getTime();
}

describe('Retry-After beyond the retry schedule (WEBHOOK_RETRY_SCHEDULE=2,2,2)', () => {
  it('503 with Retry-After: 3600 waits an hour, not 2 s', async () => {
    expect(await delayAfter(503, { 'retry-after': '3600' }, 9)).toBe(3_600_000);
  });

  it('429 with an HTTP date two hours ahead waits until then', async () => {
    const twoHoursOn = (t0: Date) => ({ 'retry-after': new Date(t0.getTime() + 2 * 3_600_000).toUTCString() });
    expect(await delayAfter(429, twoHoursOn, 10)).toBe(2 * 3_600_000);
  });

  it('is capped at 24 h: ten days, or a number too large for a date, wait 24 h', async () => {
    expect(await delayAfter(503, { 'retry-after': String(10 * 86_400) }, 11)).toBe(DAY_MS);
    expect(await delayAfter(503, { 'retry-after': '9'.repeat(30) }, 12)).toBe(DAY_MS);
  });

  it('a Retry-After shorter than the schedule does not shorten it; without one the schedule applies', async () => {
    expect(await delayAfter(503, { 'retry-after': '1' }, 13)).toBe(2000);
    expect(await delayAfter(500, {}, 14)).toBe(2000);
  });

  it('retryAfterMs reads seconds and HTTP dates, and nothing else', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Tue, 01 Jan 2030 01:00:00 GMT', now)).toBe(3_600_000);
    expect(retryAfterMs('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
