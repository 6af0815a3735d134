import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agentIdOf, booking, futureDay, tenantSetUp } from './fixtures.js';

// PATCH semantics of UpdateScheduledCallInput, field by field, over REST and GraphQL alike: an
// absent field is unchanged; null clears what a call may lack (phone, e-mail, intake notes), is
// refused for what it always has (start, agent, name, time zone), and is no reason for reason.

const { server } = useServer();
const setUp = tenantSetUp(server);

type Record = { [field: string]: unknown };
interface Case {
  field: string;
  /** Its name in the REST record. */
  record: string;
  value: unknown;
  /** What the record shows after the value was set. */
  shown?: unknown;
  onNull: 'clears' | 'refused';
}

const later = futureDay(40, 11);
const cases: Case[] = [
  { field: 'scheduledAtUtc', record: 'scheduled_at', value: later.toISOString(), onNull: 'refused' },
  { field: 'assignedAgentId', record: 'assigned_agent_id', value: agentIdOf(2), onNull: 'refused' },
  { field: 'guestName', record: 'guest_name', value: 'Bea Ray', onNull: 'refused' },
  { field: 'guestTimezone', record: 'guest_timezone', value: 'Asia/Tokyo', onNull: 'refused' },
  { field: 'guestPhone', record: 'guest_phone', value: '+447700900999', onNull: 'clears' },
  { field: 'guestEmail', record: 'guest_email', value: 'bea@example.com', onNull: 'clears' },
  { field: 'guestIntakeNotes', record: 'guest_intake_notes', value: 'VIP', onNull: 'clears' },
];

const UPDATE = `mutation($app: UUID!, $id: UUID!, $input: UpdateScheduledCallInput!) {
  updateScheduledCall(appId: $app, id: $id, input: $input) { callId }
}`;

let day = 10;
async function bookedCall() {
  const { tenant, a } = await setUp();
  const res = await a.create(booking(futureDay(day++, 10), { assignedAgentId: agentIdOf(1), guestPhone: '+447700900123', guestEmail: 'ann@example.com', guestIntakeNotes: 'first call' }));
  expect(res.status).toBe(201);
  const id = res.body.data.call.id as string;
  const record = async (): Promise<Record> => (await a.get(id)).body.data.call;
  const events = async () => (await a.get(id)).body.data.events as { event_type: string; payload: Record }[];
  /** PATCH over one transport: the error's type and detail fields, or null when it applied. */
  const patch = async (via: 'REST' | 'GraphQL', input: Record) => {
    if (via === 'REST') {
      const res = await a.patch(id, input);
      return res.status === 200 ? null : { type: res.body.error.type, fields: (res.body.error.details ?? []).map((d: { field: string }) => d.field) };
    }
    const res = await a.gql(UPDATE, { app: tenant.appId, id, input });
    const error = res.body.errors?.[0];
    return error ? { type: error.extensions?.code, fields: (error.extensions?.details ?? []).map((d: { field: string }) => d.field) } : null;
  };
  return { record, events, patch };
}

describe.each(['REST', 'GraphQL'] as const)('UpdateScheduledCallInput over %s', (via) => {
  describe.each(cases)('$field', ({ field, record, value, onNull }) => {
    it('absent: unchanged', async () => {
      const call = await bookedCall();
      const before = await call.record();
      const other = field === 'guestName' ? { guestTimezone: 'Europe/Paris' } : { guestName: 'Someone Else' };
      expect(await call.patch(via, other)).toBeNull();
      expect((await call.record())[record]).toEqual(before[record]);
    });

    it('a value: set', async () => {
      const call = await bookedCall();
      expect(await call.patch(via, { [field]: value })).toBeNull();
      const shown = (await call.record())[record];
      expect(field === 'scheduledAtUtc' ? new Date(shown as string).toISOString() : shown).toEqual(value);
    });

    it(onNull === 'clears' ? 'null: cleared' : 'null: refused with invalid_request naming the field, nothing changed', async () => {
      const call = await bookedCall();
      const before = await call.record();
      const result = await call.patch(via, { [field]: null });
      if (onNull === 'clears') {
        expect(result).toBeNull();
        expect((await call.record())[record]).toBeNull();
      } else {
        // REST names the body's field; GraphQL the path below the argument.
        expect(result).toEqual({ type: 'invalid_request', fields: [via === 'REST' ? field : `input.${field}`] });
        expect(await call.record()).toEqual(before);
        expect(await call.events()).toHaveLength(1);
      }
    });
  });

  describe('reason', () => {
    it('absent or null: the event carries none; a value: the event carries it', async () => {
      const call = await bookedCall();
      expect(await call.patch(via, { guestName: 'One' })).toBeNull();
      expect(await call.patch(via, { guestName: 'Two', reason: null })).toBeNull();
      expect(await call.patch(via, { guestName: 'Three', reason: 'typo' })).toBeNull();
      const updates = (await call.events()).filter((e) => e.event_type === 'updated').map((e) => e.payload.reason);
      expect(updates).toEqual([undefined, undefined, 'typo']);
    });

    it('null alone is still no editable field: a detail naming the body as a whole', async () => {
      const call = await bookedCall();
      expect(await call.patch(via, { reason: null })).toEqual({ type: 'invalid_request', fields: [via === 'REST' ? '' : 'input'] });
    });
  });
});
