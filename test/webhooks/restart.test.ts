// Starts its servers itself, not with useServer(): each test stops a server and starts another on its storage.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { createLogger } from '../../src/log.js';
import { webhookDeliveries } from '../../src/webhooks/tables.js';
import { WebhookWorker } from '../../src/webhooks/worker.js';
import { createFreshDatabase, startTestServer, type TestServer } from '../helpers/server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, secondsAfter, startReceiver, subscribe, verifyAt, type Receiver } from './fixtures.js';

/** Each test starts servers or processes on durable storage: slow on a busy machine. */
const SLOW = 180_000;

// At-least-once across restarts and instances: the outbox lives in the database, a claimed
// attempt is leased, and a restarted server (same PostgreSQL database, or the same PGlite
// DATA_DIR) resumes the same delivery with the same webhook-id.
const onPostgres = Boolean(process.env.DATABASE_URL);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Storage that outlives one server: a PostgreSQL database or an embedded DATA_DIR. */
async function durableStorage(): Promise<Record<string, string>> {
  if (onPostgres) {
    const database = await createFreshDatabase(process.env.DATABASE_URL!);
    cleanups.push(() => database.drop());
    return { DATABASE_URL: database.url };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-webhooks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { DATA_DIR: path.join(dir, 'db') };
}

const settings = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' };

async function receiverFor(): Promise<Receiver> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

async function cancelledCall(server: TestServer, receiver: Receiver) {
  const { tenant, a } = await schedulingTenant(server);
  const { secret } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
  await a.cancel((await a.create(booking(futureDay(4, 10)))).body.data.call.id);
  const [delivery] = await deliveriesOf(server, tenant.appId);
  return { tenant, secret, delivery: delivery! };
}

describe('restart in the middle of retries', () => {
  it('a new server on the same storage resumes the delivery with the same webhook-id', async () => {
    const storage = await durableStorage();
    const receiver = await receiverFor();
    const first = await startTestServer({ ...settings, ...storage });
    const { tenant, secret, delivery } = await cancelledCall(first, receiver);
    receiver.reply({ status: 500 });
    const t0 = new Date();
    await first.runtime.webhooks.runOnce(t0);
    expect((await deliveriesOf(first, tenant.appId))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    await first.close();

    const second = await startTestServer({ ...settings, ...storage });
    cleanups.push(() => second.close());
    const t1 = secondsAfter(t0, 10);
    expect(await second.runtime.webhooks.runOnce(t1)).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.received.map((m) => m.headers['webhook-id'])).toEqual([delivery.id, delivery.id]);
    expect(verifyAt(secret, receiver.received[1]!, t1)).toMatchObject({ type: 'scheduled.cancelled' });
    expect((await deliveriesOf(second, tenant.appId))[0]).toMatchObject({ status: 'succeeded', attempts: 2, lastResponseCode: 200 });
  }, SLOW);

  it('shutdown cuts off a send still open after the grace period and leaves it pending for the next start', async () => {
    const storage = await durableStorage();
    const receiver = await receiverFor();
    const first = await startTestServer({ ...settings, ...storage, SHUTDOWN_GRACE_MS: '300' });
    const { tenant, delivery } = await cancelledCall(first, receiver);
    receiver.hold();
    const pass = first.runtime.webhooks.runOnce(new Date());
    while (receiver.received.length === 0) await new Promise((r) => setTimeout(r, 20));
    await first.close(); // waits for the pass, which records the interruption before the database closes
    expect(await pass).toMatchObject({ claimed: 1, retrying: 1 });
    receiver.release();

    const second = await startTestServer({ ...settings, ...storage });
    cleanups.push(() => second.close());
    const [row] = await deliveriesOf(second, tenant.appId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastError: 'interrupted', lockedUntil: null });
    await second.runtime.webhooks.runOnce(new Date());
    expect(receiver.received.map((m) => m.headers['webhook-id'])).toEqual([delivery.id, delivery.id]);
    expect((await deliveriesOf(second, tenant.appId))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  }, SLOW);

  it('a worker that claimed and died holds its lease until it expires; then another sends the same webhook-id', async () => {
    const server = await startTestServer(settings);
    cleanups.push(() => server.close());
    const receiver = await receiverFor();
    const { tenant, delivery } = await cancelledCall(server, receiver);
    const worker = () => new WebhookWorker({ database: server.runtime.database, logger: createLogger('silent'), config: server.runtime.config });
    const t0 = new Date();
    const crashed = await worker().claim(t0); // claimed, then the process died before sending
    expect(crashed.map((c) => c.delivery.id)).toEqual([delivery.id]);
    const survivor = worker();
    expect((await survivor.runOnce(secondsAfter(t0, 30))).claimed).toBe(0);
    expect(receiver.received).toHaveLength(0);
    const leaseMs = server.runtime.config.WEBHOOK_TIMEOUT_MS * 2 + 30_000;
    expect(await survivor.runOnce(new Date(t0.getTime() + leaseMs + 1))).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.received.map((m) => m.headers['webhook-id'])).toEqual([delivery.id]);
    expect((await deliveriesOf(server, tenant.appId))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  }, SLOW);
});

describe.runIf(onPostgres)('several workers on one PostgreSQL database', () => {
  const opened: Database[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
  });

  it('claim concurrently with SKIP LOCKED: every delivery is sent exactly once', async () => {
    const server = await startTestServer(settings);
    cleanups.push(() => server.close());
    const receiver = await receiverFor();
    const { tenant } = await schedulingTenant(server);
    const { id: subscriptionId } = await subscribe(server, tenant, receiver.url, ['scheduled.cancelled']);
    const now = new Date();
    const total = 120;
    await server.runtime.database.db.insert(webhookDeliveries).values(
      Array.from({ length: total }, (_, i) => ({
        appId: tenant.appId,
        subscriptionId,
        eventType: 'scheduled.cancelled',
        payload: { type: 'scheduled.cancelled', timestamp: now.toISOString(), data: { n: i } },
        nextAttemptAt: new Date(now.getTime() - i),
        createdAt: now,
      })),
    );
    // Four workers, each with its own connection pool, as four instances would have.
    const config = loadConfig({ ...process.env, DATABASE_URL: server.databaseUrl, WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_BATCH: '7', DB_POOL_MAX: '3' });
    const workers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const database = await openDatabase(config, createLogger('silent'));
        opened.push(database);
        return new WebhookWorker({ database, logger: createLogger('silent'), config });
      }),
    );
    const perWorker = workers.map(() => 0);
    for (let round = 0; round < 40 && receiver.received.length < total; round += 1) {
      const results = await Promise.all(workers.map((w) => w.runOnce(now)));
      results.forEach((r, i) => (perWorker[i]! += r.claimed));
    }
    const claimed = perWorker.reduce((a, b) => a + b, 0);
    expect(perWorker.filter((n) => n > 0).length).toBeGreaterThan(1); // they did run side by side
    const ids = receiver.received.map((m) => String(m.headers['webhook-id']));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(claimed).toBe(total);
    const rows = await deliveriesOf(server, tenant.appId);
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
  }, SLOW);
});
