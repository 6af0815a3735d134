import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeEach, vi } from 'vitest';
import { webhookDeliveries } from '../../src/webhooks/tables.js';
import { gql } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { agent, api, everyDay, importRecords } from '../scheduling/fixtures.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Responses for the next requests, in order; then the default (200 unless given). */
  reply(...responses: { status: number; headers?: Record<string, string> }[]): void;
  /** Holds requests open (no answer) until release() or close(). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** A real HTTP endpoint on 127.0.0.1 that records what it receives. */
export async function startReceiver(options: { status?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const queue: { status: number; headers?: Record<string, string> }[] = [];
  let holding = false;
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = () => {
        const next = queue.shift() ?? { status: options.status ?? 200 };
        res.writeHead(next.status, { 'content-type': 'text/plain', ...next.headers });
        res.end('ok');
      };
      if (holding) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    reply: (...responses) => void queue.push(...responses),
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Webhook.verify checks the timestamp against the wall clock: verify as of the send time. */
export function verifyAt(secret: string, message: Received, at?: Date): unknown {
  const headers = {
    'webhook-id': String(message.headers['webhook-id']),
    'webhook-timestamp': String(message.headers['webhook-timestamp']),
    'webhook-signature': String(message.headers['webhook-signature']),
  };
  if (!at) return new Webhook(secret).verify(message.body, headers);
  vi.useFakeTimers({ toFake: ['Date'], now: at });
  try {
    return new Webhook(secret).verify(message.body, headers);
  } finally {
    vi.useRealTimers();
  }
}

export const allDay = everyDay('00:00', '24:00');

/** A tenant with one round-the-clock agent, and functions that call the scheduling API for it. */

export async function schedulingTenant(server: TestServer, scopes?: Parameters<TestServer['tenant']>[0]) {
  const tenant = await server.tenant(scopes);
  await importRecords(server, tenant.appId, [agent(1, 'UTC', allDay)]);
  return { tenant, a: api(server, tenant) };
}

/** The WebhookEventType name of a delivered type: its dot is an underscore. */
export const enumName = (type: string) => type.replace('.', '_');

export const SUBSCRIBE = `mutation Subscribe($appId: UUID!, $url: String!, $eventTypes: [WebhookEventType!]!) {
  createWebhookSubscription(appId: $appId, url: $url, eventTypes: $eventTypes) {
    secret subscription { id: subscriptionId url eventTypes status }
  }
}`;

/** Subscribes to webhook types by the names deliveries carry (scheduled.cancelled), given to GraphQL as its enum (scheduled_cancelled). */
export async function subscribe(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>, url: string, eventTypes: string[]) {
  const res = await gql(server.url, tenant.accessToken, SUBSCRIBE, { appId: tenant.appId, url, eventTypes: eventTypes.map(enumName) });
  if (!res.body.data) throw new Error(`subscribe failed: ${JSON.stringify(res.body)}`);
  const created = res.body.data.createWebhookSubscription as { secret: string; subscription: { id: string } };
  return { id: created.subscription.id, secret: created.secret };
}

export const deliveriesOf = (server: TestServer, appId: string) =>
  server.runtime.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.appId, appId))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));

export const booking = (start: Date, extra: object = {}) => ({ scheduledAtUtc: start.toISOString(), durationMinutes: 30, guestName: 'Ann Lee', ...extra });

export const secondsAfter = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000);

/**
 * One server per test file with the worker's poller off (tests drive it with runOnce(now)) and
 * loopback receivers allowed; a fresh receiver per test, so another test's pending deliveries
 * (the worker is global) never take its scripted responses.
 */
export function webhookTestBed(overrides: Record<string, string> = {}) {
  const { server } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0', ...overrides } });
  const bed = { server } as { server: TestServer; receiver: Receiver };
  const receivers: Receiver[] = [];
  beforeEach(async () => {
    bed.receiver = await startReceiver();
    receivers.push(bed.receiver);
  });
  // Runs before useServer's close (hooks after a test run in reverse order).
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
  });
  return bed;
}

/** The deliveries list with every field a test looks at. */
export const DELIVERIES = `query Deliveries($appId: UUID!, $status: WebhookDeliveryStatus, $first: Int, $after: String) {
  webhookDeliveries(appId: $appId, status: $status, first: $first, after: $after) {
    nodes { id: deliveryId eventType status attempts lastResponseCode lastError nextAttemptAt deliveredAt payload }
    pageInfo { hasNextPage endCursor }
  }
}`;
