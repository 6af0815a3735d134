/**
 * npm run bench:webhooks: one app whose webhook receivers never answer beside another app's
 * healthy receiver; reports the healthy app's delivery latency (from its DELETE's answer to the
 * receiver's request) alone, then with the dead-receiver app busy. One process, loopback only.
 *
 * Settings (environment): BENCH_DEAD_SUBSCRIPTIONS (20), BENCH_ROUNDS per phase (20),
 * BENCH_DEAD_RATE deletes a second by the dead-receiver app (2), and the service's own
 * WEBHOOK_* settings (defaults as in production: a 15 s timeout, a 1 s poll); DATABASE_URL for
 * PostgreSQL, else embedded PGlite in memory.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { gql } from '../test/helpers/http.js';
import { startTestServer, type Tenant, type TestServer } from '../test/helpers/server.js';
import { agent, api, everyDay, futureDay, importRecords } from '../test/scheduling/fixtures.js';

const SUBSCRIBE = `mutation($appId: UUID!, $url: String!) {
  createWebhookSubscription(appId: $appId, url: $url, eventTypes: [scheduled_cancelled]) { subscription { id: subscriptionId } }
}`;

export interface FairnessOptions {
  deadSubscriptions: number;
  rounds: number;
  deadRate: number;
}

export interface FairnessResult {
  idle: Latency;
  withDeadApp: Latency;
  deadSends: number;
  deadDeletes: number;
}

export interface Latency {
  p50: number;
  p95: number;
  max: number;
  count: number;
  /** Deliveries not received within the round's wait (counted as the wait). */
  missing: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(samples: number[], missing: number): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
  return { p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? NaN, count: samples.length, missing };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

async function schedulingApp(server: TestServer): Promise<{ tenant: Tenant; calls: ReturnType<typeof api>; next: () => Promise<string> }> {
  const tenant = await server.tenant({ rate: { minute: 100_000, hour: 1_000_000, day: 10_000_000 } });
  await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
  const calls = api(server, tenant);
  let slot = 0;
  // A call in a new half-hour each time, from two days ahead: always bookable, one agent.
  const next = async () => {
    const at = futureDay(2, 0, 0);
    at.setTime(at.getTime() + slot++ * 30 * 60_000);
    const created = await calls.create({ scheduledAtUtc: at.toISOString(), durationMinutes: 30, guestName: 'Bench Guest' });
    if (created.status !== 201) throw new Error(`booking failed: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.data.call.id as string;
  };
  return { tenant, calls, next };
}

/** Runs the scenario against a started server (WEBHOOK_ALLOW_PRIVATE=1: the receivers are on loopback). */
export async function webhookFairness(server: TestServer, options: FairnessOptions): Promise<FairnessResult> {
  let deadSends = 0;
  const held: import('node:http').ServerResponse[] = [];
  const dead = await listen((req, res) => {
    deadSends++;
    req.resume();
    held.push(res); // never answered
  });
  const arrivals = new Map<string, number>();
  const healthy = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { call: { id: string } } };
      if (!arrivals.has(body.data.call.id)) arrivals.set(body.data.call.id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  try {
    const a = await schedulingApp(server);
    const b = await schedulingApp(server);
    // A refused subscription would leave every round waiting for a delivery that never comes.
    const subscribe = async (token: string, appId: string, url: string) => {
      const res = await gql(server.url, token, SUBSCRIBE, { appId, url });
      if (res.body.errors) throw new Error(`subscription refused: ${JSON.stringify(res.body.errors)}`);
    };
    for (let i = 0; i < options.deadSubscriptions; i++) await subscribe(a.tenant.accessToken, a.tenant.appId, dead.url);
    await subscribe(b.tenant.accessToken, b.tenant.appId, healthy.url);
    const waitMs = server.runtime.config.WEBHOOK_TIMEOUT_MS * 4;

    const phase = async () => {
      const samples: number[] = [];
      let missing = 0;
      for (let round = 0; round < options.rounds; round++) {
        const id = await b.next();
        const deleted = await b.calls.cancel(id);
        if (deleted.status !== 200) throw new Error(`cancel failed: ${deleted.status}`);
        const sent = performance.now();
        while (!arrivals.has(id) && performance.now() - sent < waitMs) await sleep(5);
        const arrived = arrivals.get(id);
        if (arrived === undefined) missing++;
        samples.push((arrived ?? performance.now()) - sent);
        await sleep(Math.max(0, 1000 - (performance.now() - sent)));
      }
      return summary(samples, missing);
    };

    const idle = await phase();
    // The dead-receiver app: deadRate cancellations a second, each a delivery per subscription.
    let deadDeletes = 0;
    let busy = true;
    const loader = (async () => {
      while (busy) {
        const started = performance.now();
        await a.calls.cancel(await a.next());
        deadDeletes++;
        await sleep(Math.max(0, 1000 / options.deadRate - (performance.now() - started)));
      }
    })();
    // Let the dead app's deliveries take their slots first.
    await sleep(3000);
    const withDeadApp = await phase();
    busy = false;
    await loader;
    return { idle, withDeadApp, deadSends, deadDeletes };
  } finally {
    for (const res of held) res.destroy();
    dead.server.closeAllConnections();
    healthy.server.closeAllConnections();
    dead.server.close();
    healthy.server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options: FairnessOptions = {
    deadSubscriptions: Number(process.env.BENCH_DEAD_SUBSCRIPTIONS ?? 20),
    rounds: Number(process.env.BENCH_ROUNDS ?? 20),
    deadRate: Number(process.env.BENCH_DEAD_RATE ?? 2),
  };
  const server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' });
  try {
    const started = Date.now();
    const result = await webhookFairness(server, options);
    const round = (l: Latency) => ({ p50: Math.round(l.p50), p95: Math.round(l.p95), max: Math.round(l.max), count: l.count, missing: l.missing });
    process.stdout.write(
      JSON.stringify({
        storage: server.runtime.database.kind,
        options,
        webhook: { timeoutMs: server.runtime.config.WEBHOOK_TIMEOUT_MS, pollMs: server.runtime.config.WEBHOOK_POLL_MS, batch: server.runtime.config.WEBHOOK_BATCH },
        healthyAppLatencyMs: { idle: round(result.idle), withDeadApp: round(result.withDeadApp) },
        deadReceiverRequests: result.deadSends,
        deadAppDeletes: result.deadDeletes,
        seconds: Math.round((Date.now() - started) / 1000),
      }) + '\n',
    );
  } finally {
    await server.close();
  }
}
