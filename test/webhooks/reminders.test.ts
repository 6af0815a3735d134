import { and, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { scheduledCallReminders } from '../../src/scheduling/tables.js';
import { checkWebhookContract } from '../helpers/contract.js';
import type { TestServer } from '../helpers/server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, subscribe, verifyAt, webhookTestBed, type Receiver } from './fixtures.js';

// Reminders 24 h and 15 min before a call, sent as `scheduled.reminder` by the
// webhook worker; the clock is moved by passing `now` to runOnce, never by sleeping.
const bed = webhookTestBed();
let server: TestServer;
let receiver: Receiver;
beforeEach(() => {
  ({ server, receiver } = bed);
});

const HOUR = 3_600_000;
const MINUTE = 60_000;
const at = (base: Date, deltaMs: number) => new Date(base.getTime() + deltaMs);
const run = (now: Date) => server.runtime.webhooks.runOnce(now);
const reminderRows = (callId: string) =>
  server.runtime.database.db.select().from(scheduledCallReminders).where(eq(scheduledCallReminders.callId, callId));
const reminderDeliveries = async (appId: string) => (await deliveriesOf(server, appId)).filter((d) => d.eventType === 'scheduled.reminder');

describe('scheduled.reminder', () => {
  it('fires the 24 h reminder once it is due, then the 15 min one, each once, signed', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const { secret } = await subscribe(server, tenant, receiver.url, ['scheduled.reminder']);
    const start = futureDay(3, 12);
    const call = (await a.create(booking(start))).body.data.call;

    await run(at(start, -24 * HOUR - MINUTE));
    expect(await reminderDeliveries(tenant.appId)).toEqual([]);

    const t24 = at(start, -24 * HOUR + 1000);
    await run(t24);
    const afterFirst = await reminderDeliveries(tenant.appId);
    expect(afterFirst).toHaveLength(1);
    expect(afterFirst[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.received).toHaveLength(1);
    const message = verifyAt(secret, receiver.received[0]!, t24) as any;
    expect(message).toMatchObject({
      type: 'scheduled.reminder',
      timestamp: t24.toISOString(),
      data: {
        call: { id: call.id, app_id: tenant.appId, status: 'scheduled', scheduled_at: start.toISOString(), guest_name: 'Ann Lee' },
        reminder: { kind: '24h', due_at: at(start, -24 * HOUR).toISOString() },
      },
    });
    expect(message.data.call).not.toHaveProperty('cancelled_at');
    checkWebhookContract(receiver.received[0]!.headers, receiver.received[0]!.body);

    await run(at(start, -HOUR)); // nothing new due
    expect(await reminderDeliveries(tenant.appId)).toHaveLength(1);

    const t15 = at(start, -15 * MINUTE + 1000);
    await run(t15);
    expect(receiver.received).toHaveLength(2);
    expect((verifyAt(secret, receiver.received[1]!, t15) as any).data.reminder.kind).toBe('15m');
    expect((await reminderRows(call.id)).map((r) => r.status)).toEqual(['sent', 'sent']);
    await run(at(start, MINUTE));
    expect(receiver.received).toHaveLength(2);
  });

  it('after a PATCH time change only the re-planned reminders fire, at the new times', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.reminder']);
    const oldStart = futureDay(3, 9);
    const newStart = futureDay(4, 17);
    const call = (await a.create(booking(oldStart))).body.data.call;
    expect((await a.patch(call.id, { scheduledAtUtc: newStart.toISOString() })).status).toBe(200);

    // The old 24 h and 15 min instants pass: nothing is sent.
    await run(at(oldStart, -24 * HOUR + 1000));
    await run(at(oldStart, -15 * MINUTE + 1000));
    expect(await reminderDeliveries(tenant.appId)).toEqual([]);

    await run(at(newStart, -24 * HOUR + 1000));
    await run(at(newStart, -15 * MINUTE + 1000));
    const sent = await reminderDeliveries(tenant.appId);
    expect(sent.map((d) => (d.payload.data as any).reminder.due_at)).toEqual([
      at(newStart, -24 * HOUR).toISOString(),
      at(newStart, -15 * MINUTE).toISOString(),
    ]);
    expect(sent.every((d) => (d.payload.data as any).call.scheduled_at === newStart.toISOString())).toBe(true);
    const rows = await reminderRows(call.id);
    expect(rows.filter((r) => r.status === 'cancelled')).toHaveLength(2);
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(2);
  });

  it('after DELETE no reminder fires', async () => {
    const { tenant, a } = await schedulingTenant(server);
    await subscribe(server, tenant, receiver.url, ['scheduled.reminder', 'scheduled.cancelled']);
    const start = futureDay(3, 15);
    const call = (await a.create(booking(start))).body.data.call;
    expect((await a.cancel(call.id)).status).toBe(200);
    await run(at(start, -24 * HOUR + 1000));
    await run(at(start, -15 * MINUTE + 1000));
    expect((await deliveriesOf(server, tenant.appId)).map((d) => d.eventType)).toEqual(['scheduled.cancelled']);
    expect(receiver.received.map((m) => JSON.parse(m.body).type)).toEqual(['scheduled.cancelled']);
    expect((await reminderRows(call.id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('a reminder due without a subscriber is marked sent with no delivery; another app gets none', async () => {
    const lonely = await schedulingTenant(server);
    const other = await schedulingTenant(server);
    await subscribe(server, other.tenant, receiver.url, ['scheduled.reminder']);
    const start = futureDay(3, 20);
    const call = (await lonely.a.create(booking(start))).body.data.call;
    await run(at(start, -24 * HOUR + 1000));
    const [row] = await server.runtime.database.db
      .select()
      .from(scheduledCallReminders)
      .where(and(eq(scheduledCallReminders.callId, call.id), eq(scheduledCallReminders.kind, '24h')));
    expect(row!.status).toBe('sent');
    expect(await deliveriesOf(server, lonely.tenant.appId)).toEqual([]);
    expect(await deliveriesOf(server, other.tenant.appId)).toEqual([]);
  });
});
