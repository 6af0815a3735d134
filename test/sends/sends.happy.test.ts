import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import {
  catalogRecords,
  flowBody,
  flowTemplate,
  gql,
  importRecords,
  newPhone,
  newToken,
  productListBody,
  send,
  templateBody,
  userWrote,
} from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [
    ...catalogRecords('cat-1', ['sku-1', 'sku-2', 'sku-3']),
    flowTemplate(1),
    flowTemplate(2, { name: 'plain_notice', body_text: 'Your order {{1}} shipped.', buttons: [] }),
    flowTemplate(3, { name: 'pending_one', status: 'PENDING' }),
  ]);
});

const listMessages = (query = '') =>
  request(`${server.url}/api/v1/analytics/${tenant.appId}/messages${query}`, { token: tenant.accessToken });

describe('POST /messaging/{appId}/messages: Flow', () => {
  it('answers 202 with data.message queued, and the send joins the analytics list', async () => {
    const phone = newPhone();
    expect((await userWrote(server, tenant, phone, 1)).status).toBe(200);
    const body = flowBody(`+${phone}`);
    const res = await send(server, tenant, body);
    expect(res.status).toBe(202);
    const message = res.body.data.message;
    expect(message).toMatchObject({
      status: 'queued',
      to: `+${phone}`,
      kind: 'flow',
      message_type: 'interactive',
      flow_token: body.interactive.action.parameters.flow_token,
      template_name: null,
      product_item_count: null,
    });
    expect(message.provider_message_id).toMatch(/^sandbox\./);
    expect(Date.parse(res.body.meta.timestamp)).not.toBeNaN();

    const list = await listMessages(`?search=${phone}&direction=outbound`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      id: message.id,
      direction: 'outbound',
      message_type: 'interactive',
      status: 'queued',
      user_phone: phone,
      provider_to: phone,
      provider_from: '447700900000',
      provider_message_id: message.provider_message_id,
      channel: 'whatsapp',
    });
  });

  it('is refused outside the 24-hour window: 422 outside_service_window, pointing to a Flow template, nothing stored', async () => {
    const phone = newPhone();
    const never = await send(server, tenant, flowBody(phone));
    expect(never.status).toBe(422);
    expectErrorEnvelope(never.body, 'outside_service_window');
    expect(never.body.error.message).toContain('template');
    expect(never.body.error.message).toContain('book_table_1');

    await userWrote(server, tenant, phone, 25);
    const closed = await send(server, tenant, flowBody(phone));
    expect(closed.status).toBe(422);
    expectErrorEnvelope(closed.body, 'outside_service_window');
    expect((await listMessages(`?search=${phone}&direction=outbound`)).body.data).toEqual([]);

    await userWrote(server, tenant, phone, 23);
    expect((await send(server, tenant, flowBody(phone))).status).toBe(202);
  });

  it('refuses a flow_token used before in the app with 409 conflict, and stores nothing', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const token = newToken();
    expect((await send(server, tenant, flowBody(phone, { flow_token: token }))).status).toBe(202);
    const again = await send(server, tenant, flowBody(phone, { flow_token: token }));
    expect(again.status).toBe(409);
    expectErrorEnvelope(again.body, 'conflict');
    expect(again.body.error.message).toContain('flow_token');
    expect((await listMessages(`?search=${phone}&direction=outbound`)).body.data).toHaveLength(1);

    // Another app may use the same token.
    const other = await server.tenant();
    await userWrote(server, other, phone);
    expect((await send(server, other, flowBody(phone, { flow_token: token }))).status).toBe(202);
  });

  it('sends through the GraphQL mutation, with the fixed values omitted', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const { interactive } = flowBody(phone);
    const input = {
      to: phone,
      interactive: { body: interactive.body, action: { parameters: { ...interactive.action.parameters, flow_id: null, flow_name: 'booking' } } },
    };
    const res = await gql(
      server.url,
      tenant.accessToken,
      `mutation($appId: UUID!, $input: FlowMessageInput!) { sendFlowMessage(appId: $appId, input: $input) { replayed message { id: messageId status kind flowToken } } }`,
      { appId: tenant.appId, input },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.sendFlowMessage).toMatchObject({ replayed: false, message: { status: 'queued', kind: 'flow', flowToken: interactive.action.parameters.flow_token } });
    const details = await gql(
      server.url,
      tenant.accessToken,
      `query($appId: UUID!, $id: String!) { sentMessage(appId: $appId, messageId: $id) { kind payload message { direction } } }`,
      { appId: tenant.appId, id: res.body.data.sendFlowMessage.message.id },
    );
    expect(details.body.data.sentMessage.payload.interactive.action).toMatchObject({ name: 'flow', parameters: { flow_name: 'booking', mode: 'published' } });
  });
});

describe('POST /messaging/{appId}/messages: Product List', () => {
  it('drops unmatched items (and sections left empty) and stores what was sent', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const res = await send(server, tenant, productListBody(phone, 'cat-1', [['sku-1', 'nope-1'], ['nope-2'], ['sku-3']]));
    expect(res.status).toBe(202);
    expect(res.body.data.message).toMatchObject({ kind: 'product_list', message_type: 'interactive', product_item_count: 2 });
    const details = await gql(
      server.url,
      tenant.accessToken,
      `query($appId: UUID!, $id: String!) { sentMessage(appId: $appId, messageId: $id) { payload } }`,
      { appId: tenant.appId, id: res.body.data.message.id },
    );
    expect(details.body.data.sentMessage.payload.interactive.action.sections).toEqual([
      { title: 'Section 1', product_items: [{ product_retailer_id: 'sku-1' }] },
      { title: 'Section 3', product_items: [{ product_retailer_id: 'sku-3' }] },
    ]);
  });

  it('answers 422 no_matching_products when nothing matches, storing nothing', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const res = await send(server, tenant, productListBody(phone, 'cat-1', [['nope-1', 'nope-2']]));
    expect(res.status).toBe(422);
    expectErrorEnvelope(res.body, 'no_matching_products');
    expect((await listMessages(`?search=${phone}&direction=outbound`)).body.data).toEqual([]);
  });

  it("refuses another app's catalog as 400 validation_error on interactive.action.catalog_id", async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, catalogRecords('cat-other', ['sku-9']));
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const res = await send(server, tenant, productListBody(phone, 'cat-other', [['sku-9']]));
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toEqual([{ field: 'interactive.action.catalog_id', code: 'invalid_value', message: expect.any(String) }]);

    const gres = await gql(
      server.url,
      tenant.accessToken,
      `mutation($appId: UUID!, $input: ProductListMessageInput!) { sendProductListMessage(appId: $appId, input: $input) { message { id: messageId } } }`,
      { appId: tenant.appId, input: productListBody(phone, 'cat-other', [['sku-9']]) },
    );
    expect(gres.body.errors![0]!.extensions!).toMatchObject({ code: 'validation_error', details: [{ field: 'input.interactive.action.catalog_id' }] });
  });
});

describe('POST /messaging/{appId}/messages: templates', () => {
  it('sends an approved template outside the window, with a Flow button carrying flow_token', async () => {
    const phone = newPhone();
    const token = newToken();
    const res = await send(server, tenant, templateBody(phone, { name: 'book_table_1', parameters: ['Ada', 'Friday'], flow_token: token }));
    expect(res.status).toBe(202);
    expect(res.body.data.message).toMatchObject({ kind: 'template', message_type: 'template', template_name: 'book_table_1', flow_token: token, status: 'queued' });
    // The token is now taken for Flow sends too.
    await userWrote(server, tenant, phone);
    expect((await send(server, tenant, flowBody(phone, { flow_token: token }))).status).toBe(409);
  });

  it('sends a template without buttons through GraphQL', async () => {
    const res = await gql(
      server.url,
      tenant.accessToken,
      `mutation($appId: UUID!, $input: TemplateMessageInput!) { sendTemplateMessage(appId: $appId, input: $input) { message { kind templateName flowToken } } }`,
      { appId: tenant.appId, input: { to: newPhone(), template: { name: 'plain_notice', language: 'en_US', parameters: ['A-1'] } } },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.sendTemplateMessage.message).toEqual({ kind: 'template', templateName: 'plain_notice', flowToken: null });
  });

  it.each([
    ['an unknown template', { name: 'nope', parameters: [] }, 'template.name', 'invalid_value'],
    ['a template that is not approved', { name: 'pending_one', parameters: ['a', 'b'], flow_token: 'x-1' }, 'template.name', 'invalid_value'],
    ['too few parameters', { name: 'book_table_1', parameters: ['Ada'], flow_token: 'x-2' }, 'template.parameters', 'too_small'],
    ['too many parameters', { name: 'plain_notice', parameters: ['a', 'b'] }, 'template.parameters', 'too_big'],
    ['a Flow button without flow_token', { name: 'book_table_1', parameters: ['a', 'b'] }, 'template.flow_token', 'required'],
    ['a flow_token without a Flow button', { name: 'plain_notice', parameters: ['a'], flow_token: 'x-3' }, 'template.flow_token', 'unrecognized'],
    ['another language', { name: 'plain_notice', language: 'pt_BR', parameters: ['a'] }, 'template.name', 'invalid_value'],
  ])('refuses %s: 400 validation_error on %s', async (_name, template, field, code) => {
    const phone = newPhone();
    const res = await send(server, tenant, templateBody(phone, template));
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toEqual([{ field, code, message: expect.any(String) }]);
    expect((await listMessages(`?search=${phone}`)).body.data).toEqual([]);
  });
});

describe('the provider boundary', () => {
  it('sends through a plugged-in provider; a refusal is 503 with nothing stored', async () => {
    const { ProviderRejectedError, sandboxProvider, setSendProvider } = await import('../../src/sends/provider.js');
    const seen: { to: string; kind: string; itemCount: number }[] = [];
    setSendProvider(server.runtime, {
      name: 'test',
      send: async (m) => {
        if (m.to.endsWith('0')) throw new ProviderRejectedError('number not on WhatsApp');
        const sections = ((m.payload.interactive as any)?.action?.sections ?? []) as { product_items: unknown[] }[];
        seen.push({ to: m.to, kind: m.kind, itemCount: sections.reduce((n, s) => n + s.product_items.length, 0) });
        return { providerMessageId: `wamid.test.${seen.length}` };
      },
    });
    try {
      const phone = `${newPhone().slice(0, -1)}1`;
      await userWrote(server, tenant, phone);
      const ok = await send(server, tenant, productListBody(phone, 'cat-1', [['sku-1', 'nope']]));
      expect(ok.body.data.message.provider_message_id).toMatch(/^wamid\.test\./);
      expect(seen.at(-1)).toEqual({ to: phone, kind: 'product_list', itemCount: 1 });

      const refused = `${newPhone().slice(0, -1)}0`;
      await userWrote(server, tenant, refused);
      const res = await send(server, tenant, flowBody(refused));
      expect(res.status).toBe(503);
      expectErrorEnvelope(res.body, 'service_unavailable');
      expect(res.body.error.message).toContain('number not on WhatsApp');
      expect((await listMessages(`?search=${refused}&direction=outbound`)).body.data).toEqual([]);
    } finally {
      setSendProvider(server.runtime, sandboxProvider);
    }
  });
});
