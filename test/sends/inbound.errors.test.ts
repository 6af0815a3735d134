import { beforeAll, describe, expect, it } from 'vitest';
import { message } from '../analytics/fixtures.js';
import { expectErrorEnvelope } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { flowTemplate, importRecords, inbound, messagesMatching, metricsSummary, statusUpdate } from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [flowTemplate(1)]);
});

const summary = (t: Tenant = tenant) => metricsSummary(server, t);

describe('POST /messaging/{appId}/inbound: messages', () => {
  it.each([
    ['no type', { id: 'x', from: '4477009000001' }, 'type', 'required'],
    ['a bad phone number', { type: 'message', id: 'x', from: 'abc' }, 'from', 'invalid_format'],
    ['a future timestamp', { type: 'message', id: 'x', from: '447700900001', timestamp: '2999-01-01T00:00:00Z' }, 'timestamp', 'invalid_value'],
    ['an unknown status', { type: 'status', provider_message_id: 'p', status: 'seen' }, 'status', 'invalid_value'],
    ['an error on a non-failed status', { type: 'status', provider_message_id: 'p', status: 'sent', error: { message: 'x' } }, 'error', 'unrecognized'],
    ['an unknown field', { type: 'status', provider_message_id: 'p', status: 'sent', extra: 1 }, 'extra', 'unrecognized'],
  ])('refuses %s: 400 validation_error on %s', async (_name, event, field, code) => {
    const res = await inbound(server, tenant, event);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('answers 404 for a status update of an unknown provider_message_id', async () => {
    const res = await statusUpdate(server, tenant, 'sandbox.unknown', 'sent', new Date().toISOString());
    expect(res.status).toBe(404);
    expectErrorEnvelope(res.body, 'not_found');
  });
});

describe('POST /messaging/{appId}/inbound: status updates of imported messages', () => {
  // History imported with its provider_message_id gets its delivery receipts like the service's

  // own sends: status updates are for messages, not only for sends.

  const list = (t: Tenant, search: string) => messagesMatching(server, t, search);

  // Inside metrics/summary's default range (the last 30 days).

  it('answers 404 for the provider id of an inbound message (receipts are for outbound ones)', async () => {
    const t = await server.tenant();
    await importRecords(server, t.appId, [message(3, { id: 'in-1', direction: 'inbound', status: 'received', provider_message_id: 'wamid.inbound.1' })]);
    const res = await statusUpdate(server, t, 'wamid.inbound.1', 'delivered', new Date().toISOString());
    expect(res.status).toBe(404);
    expectErrorEnvelope(res.body, 'not_found');
    expect(await list(t, 'wamid.inbound.1')).toMatchObject([{ id: 'in-1', status: 'received' }]);
  });
});
