import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pruneExpiredKeys } from '../../src/db/idempotency.js';
import { idempotencyKeys } from '../../src/db/tables.js';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { booking, futureDay, keyedTenant, keysOf } from './fixtures.js';

const { server } = useServer();

const BOOK = `mutation($appId: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $appId, input: $input) { callId } }`;

describe('Idempotency-Key refusals', () => {
  it('the same key with another body is 422 idempotency_key_reused, and books nothing more', async () => {
    const t = await keyedTenant(server);
    expect((await t.create(booking(futureDay(40, 10)), 'reuse-1')).status).toBe(201);
    const other = await t.create(booking(futureDay(40, 12)), 'reuse-1');
    expect(other.status).toBe(422);
    expectErrorEnvelope(other.body, 'idempotency_key_reused');
    expect(other.body.error.message).toContain('Idempotency-Key');
    expect(await t.calls()).toHaveLength(1);
  });

  it('the same key on another path or method is 422 too (a key names one request)', async () => {
    const t = await keyedTenant(server);
    const created = await t.create(booking(futureDay(41, 10)), 'path-1');
    const id = created.body.data.call.id as string;
    const patch = await t.patch(id, { guestName: 'Other' }, 'path-1');
    expect(patch.status).toBe(422);
    expectErrorEnvelope(patch.body, 'idempotency_key_reused');
  });

  it('a key over 255 characters, or empty, or not visible ASCII is 400 naming the header; nothing runs', async () => {
    const t = await keyedTenant(server);
    for (const key of ['x'.repeat(256), '', 'caf\u00e9', 'two words']) {
      const res = await t.create(booking(futureDay(42, 10)), key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' }]);
    }
    expect(await t.calls()).toEqual([]);
    expect(await keysOf(server, t.tenant.appId)).toEqual([]);
  });

  it('a request refused before its write (validation, conflict) stores nothing: the corrected request may use the key', async () => {
    const t = await keyedTenant(server);
    const invalid = await t.create({ ...booking(futureDay(43, 10)), durationMinutes: 0 }, 'fix-1');
    expect(invalid.status).toBe(400);
    expect(await keysOf(server, t.tenant.appId)).toEqual([]);
    const ok = await t.create(booking(futureDay(43, 10)), 'fix-1');
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('while the first request with the key runs, another is 409 conflict and runs nothing', async () => {
    const t = await keyedTenant(server);
    // A claim held by a request that has not finished, for the very request below.
    const body = booking(futureDay(44, 10));
    await t.create(body, 'busy-1');
    await server.runtime.database.db
      .update(idempotencyKeys)
      .set({ state: 'in_flight', response: null })
      .where(and(eq(idempotencyKeys.appId, t.tenant.appId), eq(idempotencyKeys.key, 'busy-1')));
    const res = await t.create(body, 'busy-1');
    expect(res.status).toBe(409);
    expectErrorEnvelope(res.body, 'conflict');
    expect(res.body.error.message).toContain('in progress');
    expect(await t.calls()).toHaveLength(1);
  });

  it('a write that committed but whose answer was lost never runs again, even once its claim is stale', async () => {
    const t = await keyedTenant(server);
    const body = booking(futureDay(45, 10));
    await t.create(body, 'lost-1');
    await server.runtime.database.db
      .update(idempotencyKeys)
      .set({ state: 'applied', response: null, claimedAt: new Date(Date.now() - 10 * 60_000) })
      .where(and(eq(idempotencyKeys.appId, t.tenant.appId), eq(idempotencyKeys.key, 'lost-1')));
    const res = await t.create(body, 'lost-1');
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('was applied');
    expect(await t.calls()).toHaveLength(1);
  });
});

describe('Idempotency-Key on GraphQL: one mutation field per request', () => {
  it('another document with the key is 422; a query or two mutation fields with a key are refused naming the header', async () => {
    const t = await keyedTenant(server);
    const { appId } = t.tenant;
    const token = t.tenant.accessToken;
    expect((await gql(server.url, token, BOOK, { appId, input: booking(futureDay(46, 10)) }, { 'Idempotency-Key': 'g-1' })).body.errors).toBeUndefined();
    const reused = await gql(server.url, token, BOOK, { appId, input: booking(futureDay(46, 12)) }, { 'Idempotency-Key': 'g-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.errors?.[0]?.extensions?.code).toBe('idempotency_key_reused');

    const two = await gql(
      server.url,
      token,
      `mutation($appId: UUID!, $a: CreateScheduledCallInput!, $b: CreateScheduledCallInput!) {
        a: createScheduledCall(appId: $appId, input: $a) { callId } b: createScheduledCall(appId: $appId, input: $b) { callId } }`,
      { appId, a: booking(futureDay(47, 10)), b: booking(futureDay(47, 12)) },
      { 'Idempotency-Key': 'g-2' },
    );
    expect(two.status).toBe(400);
    expect(two.body.errors?.[0]?.extensions?.details).toEqual([{ field: 'Idempotency-Key', code: 'invalid_value', message: 'Idempotency-Key applies to an operation with exactly one mutation field' }]);
    const query = await gql(server.url, token, '{ viewer { clientId } }', {}, { 'Idempotency-Key': 'g-3' });
    expect(query.status).toBe(400);
    expect(query.body.errors?.[0]?.extensions?.details[0].field).toBe('Idempotency-Key');
    // A document sent by id alone cannot be fingerprinted: refused rather than run unprotected.
    const byId = await request(`${server.url}/graphql`, { token, json: { documentId: 'sha256:abc', variables: { appId } }, headers: { 'Idempotency-Key': 'g-4' } });
    expect(byId.status).toBe(400);
    expect(byId.body.errors?.[0]?.extensions?.details?.[0]?.field).toBe('Idempotency-Key');
    const bad = await gql(server.url, token, BOOK, { appId, input: booking(futureDay(47, 14)) }, { 'Idempotency-Key': 'x'.repeat(256) });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.extensions?.details[0]).toEqual({ field: 'Idempotency-Key', code: 'invalid_format', message: 'must be 1 to 255 visible ASCII characters' });
    expect(await t.calls()).toHaveLength(1);
  });

  it('a mutation answered with errors (nothing written) stores nothing', async () => {
    const t = await keyedTenant(server);
    const res = await gql(server.url, t.tenant.accessToken, BOOK, { appId: t.tenant.appId, input: { ...booking(futureDay(48, 10)), durationMinutes: 0 } }, { 'Idempotency-Key': 'g-err' });
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect(await keysOf(server, t.tenant.appId)).toEqual([]);
  });
});

describe('Idempotency-Key retention', () => {
  it('keys older than 24 hours are pruned; the key may then be used for any request', async () => {
    const t = await keyedTenant(server);
    await t.create(booking(futureDay(49, 10)), 'old-1');
    await server.runtime.database.db
      .update(idempotencyKeys)
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(eq(idempotencyKeys.appId, t.tenant.appId));
    // Another request under the expired key runs (the expired row is taken over).
    expect((await t.create(booking(futureDay(49, 12)), 'old-1')).status).toBe(201);
    expect(await t.calls()).toHaveLength(2);
    await server.runtime.database.db
      .update(idempotencyKeys)
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(eq(idempotencyKeys.appId, t.tenant.appId));
    expect(await pruneExpiredKeys(server.runtime.database.db, new Date())).toBeGreaterThanOrEqual(1);
    expect(await keysOf(server, t.tenant.appId)).toEqual([]);
  });
});

describe('bounded: an answer over IDEMPOTENCY_MAX_ANSWER_BYTES', () => {
  const { server: small } = useServer({ overrides: { IDEMPOTENCY_MAX_ANSWER_BYTES: '256' } });

  it('is answered but not kept; a retry is 409 and runs nothing', async () => {
    const t = await keyedTenant(small);
    const body = booking(futureDay(50, 10), { guestIntakeNotes: 'n'.repeat(400) });
    const first = await t.create(body, 'big-1');
    expect(first.status).toBe(201);
    expect(first.body.data.call.guest_intake_notes).toBe('n'.repeat(400));
    const rows = await keysOf(small, t.tenant.appId);
    expect(rows.map((r) => [r.state, r.response])).toEqual([['completed', null]]);
    const again = await t.create(body, 'big-1');
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('too large');
    expect(await t.calls()).toHaveLength(1);
  });
});
