import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { outboundMessageByProviderId } from '../../src/sends/service.js';
import { message } from '../analytics/fixtures.js';
import { request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { ago, flowBody, flowTemplate, gql, importRecords, inbound, messagesMatching, metricsSummary, newPhone, send, statusUpdate, templateBody, userWrote } from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [flowTemplate(1)]);
});

const summary = (t: Tenant = tenant) => metricsSummary(server, t);
const sentDetails = (id: string) =>
  gql(
    server.url,
    tenant.accessToken,
    `query($appId: UUID!, $id: String!) { sentMessage(appId: $appId, messageId: $id) { flowReply { messageId receivedAt response } message { status sentAt deliveredAt readAt failedAt errorMessage } } }`,
    { appId: tenant.appId, id },
  );

describe('POST /messaging/{appId}/inbound: messages', () => {
  it('stores an inbound message as received (opening the window); a redelivery is stored once', async () => {
    const phone = newPhone();
    const event = { type: 'message', id: 'wamid.in.redelivered', from: `+${phone}`, to: '447700900000', text: 'hi' };
    const first = await inbound(server, tenant, event);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      event: 'message',
      applied: true,
      linked_message_id: null,
      message: { direction: 'inbound', status: 'received', user_phone: phone, provider_message_id: 'wamid.in.redelivered', message_type: 'text' },
    });
    const again = await inbound(server, tenant, event);
    expect(again.body.data).toMatchObject({ applied: false, message: { id: first.body.data.message.id } });
    const list = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}`, { token: tenant.accessToken });
    expect(list.body.data).toHaveLength(1);
    expect((await send(server, tenant, flowBody(phone))).status).toBe(202);
  });

  it('links a Flow reply to its send by flow_token and stores it as flow_handled', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    const sent = await send(server, tenant, body);
    const reply = await inbound(server, tenant, {
      type: 'message',
      id: 'wamid.flow.reply.1',
      from: phone,
      flow_reply: { flow_token: body.interactive.action.parameters.flow_token, response: { party: 4, time: '19:30' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({
      linked_message_id: sent.body.data.message.id,
      message: { direction: 'inbound', status: 'flow_handled', message_type: 'interactive' },
    });
    const details = await sentDetails(sent.body.data.message.id);
    expect(details.body.data.sentMessage.flowReply).toMatchObject({ messageId: reply.body.data.message.id, response: { party: 4, time: '19:30' } });
  });

  it('links the reply to a template send with a Flow button too; an unknown token or another number is not linked', async () => {
    const phone = newPhone();
    const sent = await send(server, tenant, templateBody(phone, { name: 'book_table_1', parameters: ['a', 'b'], flow_token: 'tpl-token-1' }));
    expect(sent.status).toBe(202);
    const stranger = await inbound(server, tenant, { type: 'message', id: 'wamid.flow.stranger', from: newPhone(), flow_reply: { flow_token: 'tpl-token-1' } });
    expect(stranger.body.data).toMatchObject({ linked_message_id: null, message: { status: 'received' } });
    const unknown = await inbound(server, tenant, { type: 'message', id: 'wamid.flow.unknown', from: phone, flow_reply: { flow_token: 'nope' } });
    expect(unknown.body.data).toMatchObject({ linked_message_id: null, message: { status: 'received' } });
    const reply = await inbound(server, tenant, { type: 'message', id: 'wamid.flow.tpl', from: phone, flow_reply: { flow_token: 'tpl-token-1', response: {} } });
    expect(reply.body.data).toMatchObject({ linked_message_id: sent.body.data.message.id, message: { status: 'flow_handled' } });
  });

  it('a message without `to` keeps the business number an earlier one named (provider_from of later sends)', async () => {
    const phone = newPhone();
    const providerFromOfSend = async () => {
      const sent = await send(server, tenant, flowBody(phone));
      expect(sent.status).toBe(202);
      const list = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}&direction=outbound`, { token: tenant.accessToken });
      return list.body.data.find((m: { id: string }) => m.id === sent.body.data.message.id).provider_from;
    };
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
    expect((await inbound(server, tenant, { type: 'message', id: `wamid.${phone}.1`, from: phone, to: '447700900000', timestamp: at(30), text: 'hi' })).status).toBe(200);
    const noTo = await inbound(server, tenant, { type: 'message', id: `wamid.${phone}.2`, from: phone, timestamp: at(20), text: 'still me' });
    expect(noTo.body.data.message.provider_to).toBe('');
    expect(await providerFromOfSend()).toBe('447700900000');
    // The same through GraphQL; a later message naming another number moves it.
    const viaGraphql = await gql(server.url, tenant.accessToken, 'mutation($appId: UUID!, $e: JSON!) { ingestInboundEvent(appId: $appId, event: $e) { applied } }', {
      appId: tenant.appId,
      e: { type: 'message', id: `wamid.${phone}.3`, from: phone, timestamp: at(10), text: 'again' },
    });
    expect(viaGraphql.body.data.ingestInboundEvent.applied).toBe(true);
    expect(await providerFromOfSend()).toBe('447700900000');
    await inbound(server, tenant, { type: 'message', id: `wamid.${phone}.4`, from: phone, to: '447700900111', timestamp: at(5), text: 'other line' });
    expect(await providerFromOfSend()).toBe('447700900111');
  });
});

describe('POST /messaging/{appId}/inbound: status updates', () => {
  it('moves the funnel in metrics/summary: queued, sent, delivered, read; never backwards', async () => {
    const t = await server.tenant();
    const phone = newPhone();
    await userWrote(server, t, phone);
    const sent = await send(server, t, flowBody(phone));
    const pid = sent.body.data.message.provider_message_id;
    const base = Date.now() - 60_000;
    const at = (s: number) => new Date(base + s * 1000).toISOString();
    expect(await summary(t)).toMatchObject({ sent: 0, delivered: 0, read: 0, failed: 0, contacts: 1 });

    expect((await statusUpdate(server, t, pid, 'sent', at(1))).body.data).toMatchObject({ event: 'status', applied: true, message: { status: 'sent', sent_at: at(1) } });
    expect(await summary(t)).toMatchObject({ sent: 1, delivered: 0, read: 0 });
    await statusUpdate(server, t, pid, 'delivered', at(2));
    expect(await summary(t)).toMatchObject({ sent: 1, delivered: 1, read: 0 });
    await statusUpdate(server, t, pid, 'read', at(3));
    expect(await summary(t)).toMatchObject({ sent: 1, delivered: 1, read: 1, failed: 0 });

    // Late and repeated updates change nothing: read stays read, and a failed after read is ignored.
    const late = await statusUpdate(server, t, pid, 'delivered', at(2));
    expect(late.body.data).toMatchObject({ applied: false, message: { status: 'read' } });
    const failed = await statusUpdate(server, t, pid, 'failed', at(4), { error: { message: 'late failure' } });
    expect(failed.body.data).toMatchObject({ applied: false, message: { status: 'read', failed_at: null, error_message: null } });
    expect(await summary(t)).toMatchObject({ sent: 1, delivered: 1, read: 1, failed: 0 });
  });

  it('keeps the timestamps of out-of-order updates without moving back', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const sent = await send(server, tenant, flowBody(phone));
    const pid = sent.body.data.message.provider_message_id;
    await statusUpdate(server, tenant, pid, 'read', '2026-01-01T10:00:03.000Z');
    await statusUpdate(server, tenant, pid, 'sent', '2026-01-01T10:00:01.000Z');
    await statusUpdate(server, tenant, pid, 'delivered', '2026-01-01T10:00:02.000Z');
    const details = await sentDetails(sent.body.data.message.id);
    expect(details.body.data.sentMessage.message).toEqual({
      status: 'read',
      sentAt: '2026-01-01T10:00:01.000Z',
      deliveredAt: '2026-01-01T10:00:02.000Z',
      readAt: '2026-01-01T10:00:03.000Z',
      failedAt: null,
      errorMessage: null,
    });
  });

  it('records a failure with its error message and counts it as failed', async () => {
    const t = await server.tenant();
    const phone = newPhone();
    await userWrote(server, t, phone);
    const sent = await send(server, t, flowBody(phone));
    const pid = sent.body.data.message.provider_message_id;
    await statusUpdate(server, t, pid, 'sent', new Date(Date.now() - 2000).toISOString());
    const res = await statusUpdate(server, t, pid, 'failed', new Date(Date.now() - 1000).toISOString(), { error: { message: 'recipient unreachable' } });
    expect(res.body.data).toMatchObject({ applied: true, message: { status: 'failed', error_message: 'recipient unreachable' } });
    expect(res.body.data.message.failed_at).toBeTruthy();
    expect((await statusUpdate(server, t, pid, 'delivered', new Date().toISOString())).body.data.message.status).toBe('failed');
    expect(await summary(t)).toMatchObject({ sent: 0, delivered: 0, read: 0, failed: 1 });
  });
});

describe('POST /messaging/{appId}/inbound: status updates of imported messages', () => {
  // History imported with its provider_message_id gets its delivery receipts like the service's

  // own sends: status updates are for messages, not only for sends.

  const list = (t: Tenant, search: string) => messagesMatching(server, t, search);

  it('moves an imported outbound message and the funnel, with the same rules as a send', async () => {
    const t = await server.tenant();
    // Each time computed once: ago() read twice across a second boundary would differ.
    const [at60, at59, at57, at56] = [ago(60), ago(59), ago(57), ago(56)];
    await importRecords(server, t.appId, [
      message(2, { id: 'imp-1', direction: 'outbound', status: 'queued', provider_message_id: 'wamid.imported.1', created_at: at60, sent_at: null, failed_at: null, error_message: null }),
    ]);
    expect(await summary(t)).toMatchObject({ sent: 0, delivered: 0, read: 0, failed: 0 });

    const sent = await statusUpdate(server, t, 'wamid.imported.1', 'sent', at59);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ event: 'status', applied: true, message: { id: 'imp-1', direction: 'outbound', status: 'sent', sent_at: at59 } });
    expect((await statusUpdate(server, t, 'wamid.imported.1', 'read', at57)).body.data).toMatchObject({ applied: true, message: { status: 'read' } });
    // Never backwards, as for a send.
    const late = await statusUpdate(server, t, 'wamid.imported.1', 'failed', at56, { error: { message: 'late' } });
    expect(late.body.data).toMatchObject({ applied: false, message: { status: 'read', failed_at: null, error_message: null } });

    expect(await list(t, 'wamid.imported.1')).toMatchObject([{ id: 'imp-1', status: 'read', sent_at: at59 }]);
    expect(await summary(t)).toMatchObject({ sent: 1, delivered: 1, read: 1, failed: 0 });
  });

  it('updates the newest outbound message when imported history repeats a provider_message_id', async () => {
    const t = await server.tenant();
    const dup = (n: number, id: string) => message(n, { id, direction: 'outbound', status: 'sent', provider_message_id: 'wamid.twice' });
    await importRecords(server, t.appId, [dup(10, 'older'), dup(20, 'newer')]);
    expect((await statusUpdate(server, t, 'wamid.twice', 'delivered', new Date().toISOString())).body.data).toMatchObject({ applied: true, message: { id: 'newer', status: 'delivered' } });
    const rows = await list(t, 'wamid.twice');
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      ['newer', 'delivered'],
      ['older', 'sent'],
    ]);
  });

  it("keeps a send's receipts on the send when imported history holds a later copy of it", async () => {
    const t = await server.tenant();
    const phone = newPhone();
    await userWrote(server, t, phone);
    const sent = await send(server, t, flowBody(phone));
    const { id: sentId, provider_message_id: pid } = sent.body.data.message;
    const copy = message(30, { id: 'copy-of-send', direction: 'outbound', status: 'sent', provider_message_id: pid, created_at: new Date(Date.now() + 60_000).toISOString() });
    await importRecords(server, t.appId, [copy]);
    const res = await statusUpdate(server, t, pid, 'delivered', new Date().toISOString());
    expect(res.body.data).toMatchObject({ applied: true, message: { id: sentId, status: 'delivered' } });
    const rows = await list(t, pid);
    expect(rows.map((r) => [r.id, r.status]).sort()).toEqual([
      ['copy-of-send', 'sent'],
      [sentId, 'delivered'],
    ].sort());
  });

  it('finds the message through messages_app_outbound_provider_message_idx', async () => {
    const t = await server.tenant();
    await importRecords(
      server,
      t.appId,
      Array.from({ length: 300 }, (_, i) => message(i, { id: `plan-${i}`, provider_message_id: `wamid.plan.${i}` })),
    );
    const db = server.runtime.database.db;
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`analyze messages`);
      // Small tables make a sequential scan the cheapest; off, the planner shows which index fits the predicate.
      await tx.execute(sql`set local enable_seqscan = off`);
      const query = outboundMessageByProviderId(tx, t.appId, 'wamid.plan.42');
      return rowsOf<{ 'QUERY PLAN': string }>(await tx.execute(sql`explain ${query.getSQL()}`)).map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('messages_app_outbound_provider_message_idx');
  });
});
