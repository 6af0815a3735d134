import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { flowBody, gql, newPhone, newToken, send, userWrote } from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

const outbound = async (phone: string) =>
  (await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}&direction=outbound`, { token: tenant.accessToken })).body.data;

describe('Idempotency-Key on sends', () => {
  it('replays the stored first response for the same body and sends once', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const first = await send(server, tenant, body, { 'Idempotency-Key': 'order-1' });
    expect(first.status).toBe(202);
    // Same body with its keys in another order: still the same request.
    const reordered = JSON.parse(JSON.stringify({ interactive: body.interactive, type: body.type, to: body.to }));
    const second = await send(server, tenant, reordered, { 'Idempotency-Key': 'order-1' });
    expect(second.status).toBe(202);
    expect(second.body.data).toEqual(first.body.data);
    expect(await outbound(phone)).toHaveLength(1);
  });

  it('answers 409 conflict for the same key with a different body', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    expect((await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'order-2' })).status).toBe(202);
    const other = await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'order-2' });
    expect(other.status).toBe(409);
    expectErrorEnvelope(other.body, 'conflict');
    expect(other.body.error.message).toContain('Idempotency-Key');
    expect(await outbound(phone)).toHaveLength(1);
  });

  it('stores nothing when the request fails: the corrected request may use the key', async () => {
    const phone = newPhone();
    const invalid = await send(server, tenant, flowBody(phone, { flow_cta: 'x'.repeat(21) }), { 'Idempotency-Key': 'order-3' });
    expect(invalid.status).toBe(400);
    const closed = await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'order-3' });
    expect(closed.status).toBe(422);
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const ok = await send(server, tenant, body, { 'Idempotency-Key': 'order-3' });
    expect(ok.status).toBe(202);
    expect((await send(server, tenant, body, { 'Idempotency-Key': 'order-3' })).body.data).toEqual(ok.body.data);
  });

  it('keys are per app, and the GraphQL argument shares them with the header', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const rest = await send(server, tenant, body, { 'Idempotency-Key': 'shared-1' });
    const viaGraphql = await gql(
      server.url,
      tenant.accessToken,
      `mutation($appId: UUID!, $input: FlowMessageInput!, $key: String) { sendFlowMessage(appId: $appId, input: $input, idempotencyKey: $key) { replayed message { id: messageId status providerMessageId } } }`,
      { appId: tenant.appId, input: body, key: 'shared-1' },
    );
    expect(viaGraphql.body.data.sendFlowMessage).toEqual({
      replayed: true,
      message: { id: rest.body.data.message.id, status: 'queued', providerMessageId: rest.body.data.message.provider_message_id },
    });

    const other = await server.tenant();
    await userWrote(server, other, phone);
    const elsewhere = await send(server, other, flowBody(phone, { flow_token: newToken() }), { 'Idempotency-Key': 'shared-1' });
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.body.data.message.id).not.toBe(rest.body.data.message.id);
  });

  it('refuses a malformed key with validation_error naming the header', async () => {
    const phone = newPhone();
    const res = await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'x'.repeat(256) });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details[0].field).toBe('Idempotency-Key');
  });

  // Needs src/rest/adapter.ts to pass an empty header on as '' (it is dropped as absent there,
  // like an empty query parameter, before the schema sees it): un-skip with that change.
  it('refuses an empty key (the header sent without a value) as the GraphQL argument is, and sends nothing', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const res = await send(server, tenant, body, { 'Idempotency-Key': '' });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' });
    expect(await outbound(phone)).toEqual([]);
    const viaGraphql = await gql(
      server.url,
      tenant.accessToken,
      'mutation($appId: UUID!, $m: JSON!, $key: String) { sendMessage(appId: $appId, message: $m, idempotencyKey: $key) { message { id: messageId } } }',
      { appId: tenant.appId, m: body, key: '' },
    );
    expect(viaGraphql.body.errors?.[0]?.extensions?.details).toContainEqual({ field: 'idempotencyKey', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' });
    // Without the header at all, the send goes through once.
    expect((await send(server, tenant, body)).status).toBe(202);
    expect(await outbound(phone)).toHaveLength(1);
  });

  it('answers 409 while a request with the key is in flight', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    // A claim held by a request that has not finished (written as the service writes it).
    const db = server.runtime.database.db;
    const { sendIdempotencyKeys } = await import('../../src/sends/tables.js');
    const { requestHash } = await import('../../src/sends/idempotency.js');
    const { sendMessageSchema } = await import('../../src/sends/payloads.js');
    const body = flowBody(phone);
    const now = new Date();
    await db.insert(sendIdempotencyKeys).values({
      appId: tenant.appId,
      key: 'busy-1',
      requestHash: requestHash(sendMessageSchema.parse(body)),
      state: 'in_flight',
      claimedAt: now,
      createdAt: now,
    });
    const res = await send(server, tenant, body, { 'Idempotency-Key': 'busy-1' });
    expect(res.status).toBe(409);
    expectErrorEnvelope(res.body, 'conflict');
    expect(res.body.error.message).toContain('in progress');
    expect(await outbound(phone)).toEqual([]);
  });
});

describe('Idempotency-Key retention', () => {
  it('a key older than 24 hours may be used again, for any body', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    expect((await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'old-1' })).status).toBe(202);
    const { sendIdempotencyKeys } = await import('../../src/sends/tables.js');
    const { idempotencyKeys } = await import('../../src/db/tables.js');
    const { and, eq } = await import('drizzle-orm');
    // Both the request's key (every write's) and the send's own.
    await server.runtime.database.db
      .update(sendIdempotencyKeys)
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(and(eq(sendIdempotencyKeys.appId, tenant.appId), eq(sendIdempotencyKeys.key, 'old-1')));
    await server.runtime.database.db
      .update(idempotencyKeys)
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(and(eq(idempotencyKeys.appId, tenant.appId), eq(idempotencyKeys.key, 'old-1')));
    const reused = await send(server, tenant, flowBody(phone), { 'Idempotency-Key': 'old-1' });
    expect(reused.status).toBe(202);
    expect(await outbound(phone)).toHaveLength(2);
  });
});
