import { describe, expect, it } from 'vitest';
import { api, futureDay } from '../scheduling/fixtures.js';
import { booking, deliveriesOf, schedulingTenant, subscribe, webhookTestBed } from './fixtures.js';

// A webhook's `data.call` is the call's whole REST record as it was after the change: every
// field GET scheduled-calls/{id} answers, with the same values.
const bed = webhookTestBed();

describe('the call record in scheduled.* webhooks', () => {
  it('equals the REST record after each change, metadata, answers and intake notes included', async () => {
    const { server, receiver } = bed;
    const { tenant } = await schedulingTenant(server);
    const a = api(server, tenant);
    await subscribe(server, tenant, receiver.url, ['scheduled.created', 'scheduled.updated', 'scheduled.cancelled']);
    const created = await a.create(
      booking(futureDay(4, 10), { guestIntakeNotes: 'Wants a demo', metadata: { crm_id: 'AC-1', seats: 40 }, answers: [{ question: 'Q', answer: 'A' }] }),
    );
    expect(created.status).toBe(201);
    const id = created.body.data.call.id;
    expect((await a.patch(id, { metadata: { seats: 41 } })).status).toBe(200);
    const patched = (await a.get(id)).body.data.call;
    // A cancel without a reason: the REST record says "" (its type is a string), the event null.
    expect((await a.cancel(id, { json: { reason: '' } })).status).toBe(200);
    const cancelled = (await a.get(id)).body.data;

    const payloads = (await deliveriesOf(server, tenant.appId)).map((d) => d.payload as unknown as { type: string; data: { call: object; event: { payload: object } } });
    expect(payloads.map((p) => p.type)).toEqual(['scheduled.created', 'scheduled.updated', 'scheduled.cancelled']);
    expect(payloads[0]!.data.call).toEqual(created.body.data.call);
    expect(payloads[1]!.data.call).toEqual(patched);
    expect(payloads[1]!.data.event.payload).toEqual({ fields: ['metadata'] });
    expect(payloads[2]!.data.call).toEqual(cancelled.call);
    expect(cancelled.call.cancellation_reason).toBe('');
    expect(payloads[2]!.data.event.payload).toEqual({ reason: null });
    expect(cancelled.events.at(-1).payload).toEqual({ reason: null });
  });
});
