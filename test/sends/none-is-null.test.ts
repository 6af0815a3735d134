import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { api, booking, futureDay, importRecords as importScheduling, agent, allDay } from '../scheduling/fixtures.js';
import { gql, inbound, newPhone } from './fixtures.js';

// None is null in storage, GraphQL and events; REST v1 keeps its string fields, empty for none.
const { server, tenant } = useServer({ tenant: true });

describe('unknown provider numbers', () => {
  it("an inbound message without `to`: REST says '', GraphQL and the row null", async () => {
    const phone = newPhone();
    const res = await inbound(server, tenant, { type: 'message', id: `wamid.none.${phone}`, from: phone, text: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toMatchObject({ provider_from: phone, provider_to: '' });
    const id = res.body.data.message.id;
    const detail = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages/${id}`, { token: tenant.accessToken });
    expect(detail.body.data.message).toMatchObject({ provider_from: phone, provider_to: '' });
    const list = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}`, { token: tenant.accessToken });
    expect(list.body.data).toEqual([detail.body.data.message].map(({ delivered_at: _d, read_at: _r, ...m }) => m));
    const graph = await gql(server.url, tenant.accessToken, 'query($a: UUID!, $id: String!) { message(appId: $a, id: $id) { providerFrom providerTo } }', { a: tenant.appId, id });
    expect(graph.body.data.message).toEqual({ providerFrom: phone, providerTo: null });
    const [row] = rowsOf<{ provider_to: string | null }>(await server.runtime.database.db.execute(sql`select provider_to from messages where app_id = ${tenant.appId} and id = ${id}`));
    expect(row!.provider_to).toBeNull();
  });

  it("an imported message with '' stores null", async () => {
    const { importRecords } = await import('../analytics/fixtures.js');
    const { message } = await import('../analytics/fixtures.js');
    await importRecords(server, tenant.appId, [message(9001, { id: 'none-import', provider_from: '', provider_to: null })]);
    const graph = await gql(server.url, tenant.accessToken, 'query($a: UUID!) { message(appId: $a, id: "none-import") { providerFrom providerTo } }', { a: tenant.appId });
    expect(graph.body.data.message).toEqual({ providerFrom: null, providerTo: null });
    const rest = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages/none-import`, { token: tenant.accessToken });
    expect(rest.body.data.message).toMatchObject({ provider_from: '', provider_to: '' });
  });
});

describe('a cancel without a reason', () => {
  it("REST says '' (after cancel), GraphQL, the row and the event null", async () => {
    await importScheduling(server, tenant.appId, [agent(1, 'UTC', allDay)]);
    const a = api(server, tenant);
    for (const [i, cancel] of [{}, { json: { reason: '' } }, { query: '?reason=' }].entries()) {
      const id = (await a.create(booking(futureDay(3, 8 + i)))).body.data.call.id;
      const res = await a.cancel(id, cancel);
      expect(res.body.data.call.cancellation_reason).toBe('');
      const got = (await a.get(id)).body.data;
      expect(got.call.cancellation_reason).toBe('');
      expect(got.events.at(-1)).toMatchObject({ event_type: 'cancelled', payload: { reason: null } });
      const graph = await a.gql('query($a: UUID!, $id: UUID!) { scheduledCall(appId: $a, id: $id) { status cancellationReason } }', { a: tenant.appId, id });
      expect(graph.body.data.scheduledCall).toEqual({ status: 'cancelled', cancellationReason: null });
      const [row] = rowsOf<{ r: string | null }>(await server.runtime.database.db.execute(sql`select cancellation_reason as r from scheduled_calls where id = ${id}`));
      expect(row!.r).toBeNull();
    }
    const viaGraph = (await a.create(booking(futureDay(3, 12)))).body.data.call.id;
    const cancelled = await a.gql('mutation($a: UUID!, $id: UUID!) { cancelScheduledCall(appId: $a, id: $id, reason: "") { cancellationReason } }', { a: tenant.appId, id: viaGraph });
    expect(cancelled.body.data.cancelScheduledCall).toEqual({ cancellationReason: null });
  });
});
