import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, startReceiver, subscribe, type Receiver } from './fixtures.js';

// One tenant's receivers that never answer must not delay another tenant's webhooks: sends run
// concurrently under limits per app and per endpoint, and a freed slot is filled at once.
const TIMEOUT_MS = 4000;
const { server: live } = useServer({
  overrides: {
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE: '60',
    WEBHOOK_CONCURRENCY: '8',
    WEBHOOK_APP_CONCURRENCY: '4',
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
  },
});
const receivers: Receiver[] = [];
const servers: Server[] = [];
// Runs before useServer's close (hooks after a test run in reverse order).
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  for (const s of servers) s.closeAllConnections(), s.close();
});

const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};

const until = async (what: () => Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('webhook delivery across tenants', () => {
  it("a dead receiver with 10 subscriptions holds only its endpoint's slots; another app's delivery goes out at once", async () => {
    const dead = await receiver();
    dead.hold();
    const { tenant: a, a: apiA } = await schedulingTenant(live);
    for (let i = 0; i < 10; i++) await subscribe(live, a, dead.url, ['scheduled.cancelled']);
    for (let i = 0; i < 3; i++) await apiA.cancel((await apiA.create(booking(futureDay(4, 9 + i)))).body.data.call.id);
    expect(await deliveriesOf(live, a.appId)).toHaveLength(30);
    await until(async () => dead.received.length >= 2);

    const healthy = await receiver();
    const { tenant: b, a: apiB } = await schedulingTenant(live);
    await subscribe(live, b, healthy.url, ['scheduled.cancelled']);
    const started = Date.now();
    await apiB.cancel((await apiB.create(booking(futureDay(5, 10)))).body.data.call.id);
    await until(async () => (await deliveriesOf(live, b.appId))[0]?.status === 'succeeded');
    const latency = Date.now() - started;
    // Well inside the dead receiver's timeout: B never waited for A's sends.
    expect(latency).toBeLessThan(TIMEOUT_MS / 2);
    // The dead endpoint got at most its limit, however many of A's were due.
    expect(dead.received.length).toBeLessThanOrEqual(2);
    dead.release();
  }, 30_000);

  it('a receiver that answers 200 and never finishes its body has received the delivery', async () => {
    const hanging = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('accepted, and then nothing more');
      });
    });
    servers.push(hanging);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const { tenant, a } = await schedulingTenant(live);
    await subscribe(live, tenant, `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hooks`, ['scheduled.cancelled']);
    const started = Date.now();
    await a.cancel((await a.create(booking(futureDay(6, 10)))).body.data.call.id);
    await until(async () => (await deliveriesOf(live, tenant.appId))[0]?.status !== 'pending');
    expect((await deliveriesOf(live, tenant.appId))[0]).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseCode: 200, lastError: null });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
  }, 30_000);

  it('lastError is a category (connection_refused), not the socket message with the address and port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { tenant, a } = await schedulingTenant(live);
    await subscribe(live, tenant, `http://127.0.0.1:${port}/hooks`, ['scheduled.cancelled']);
    await a.cancel((await a.create(booking(futureDay(7, 10)))).body.data.call.id);
    await until(async () => (await deliveriesOf(live, tenant.appId))[0]?.attempts === 1 && (await deliveriesOf(live, tenant.appId))[0]?.lockedUntil === null);
    const [row] = await deliveriesOf(live, tenant.appId);
    expect(row).toMatchObject({ status: 'pending', lastResponseCode: null, lastError: 'connection_refused' });
  }, 30_000);
});
