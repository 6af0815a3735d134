import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { catalogRecords, flowBody, gql, importRecords, newPhone, productListBody, send, userWrote } from './fixtures.js';

// One row per rule of the Flow and Product List payloads, through the real REST route
// (status, error type, dotted field path, detail code), and the same bodies through GraphQL.

const { server, tenant } = useServer({ tenant: true });
// Built at collection time, before beforeAll: the bodies below need the number already.
const phone = newPhone();
const skus = Array.from({ length: 31 }, (_, i) => `sku-${i + 1}`);

beforeAll(async () => {
  await importRecords(server, tenant.appId, catalogRecords('cat-1', skus));
  await userWrote(server, tenant, phone);
});

type Body = any;
const flow = (edit: (b: Body) => void = () => {}) => {
  const b: Body = flowBody(phone);
  edit(b);
  return b;
};
const products = (edit: (b: Body) => void = () => {}) => {
  const b: Body = productListBody(phone, 'cat-1', [['sku-1', 'sku-2'], ['sku-3']]);
  edit(b);
  return b;
};
const params = (b: Body) => b.interactive.action.parameters;
/** {"a": {"a": ... {}}}, `levels` objects deep. */
const nested = (levels: number) => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};
const P = 'interactive.action.parameters';

const invalid: [string, Body, string, string][] = [
  ['to is required', flow((b) => delete b.to), 'to', 'required'],
  ['to must be a phone number', flow((b) => (b.to = 'call me')), 'to', 'invalid_format'],
  ['type is required', flow((b) => delete b.type), 'type', 'required'],
  ['type must be interactive or template', flow((b) => (b.type = 'text')), 'type', 'invalid_value'],
  ['interactive is required', flow((b) => delete b.interactive), 'interactive', 'required'],
  ['interactive.type must be flow or product_list', flow((b) => (b.interactive.type = 'button')), 'interactive.type', 'invalid_value'],
  ['header.text at most 60 characters', flow((b) => (b.interactive.header.text = 'h'.repeat(61))), 'interactive.header.text', 'too_long'],
  ['body.text is required', flow((b) => delete b.interactive.body.text), 'interactive.body.text', 'required'],
  ['body.text at most 1024 characters', flow((b) => (b.interactive.body.text = 'b'.repeat(1025))), 'interactive.body.text', 'too_long'],
  ['footer.text at most 60 characters', flow((b) => (b.interactive.footer.text = 'f'.repeat(61))), 'interactive.footer.text', 'too_long'],
  ['action.name must be flow', flow((b) => (b.interactive.action.name = 'send')), 'interactive.action.name', 'invalid_value'],
  ['action.name is required', flow((b) => delete b.interactive.action.name), 'interactive.action.name', 'required'],
  ['interactive.type is required', flow((b) => delete b.interactive.type), 'interactive.type', 'required'],
  ['flow_message_version is required', flow((b) => delete params(b).flow_message_version), `${P}.flow_message_version`, 'required'],
  ['action.parameters is required', flow((b) => delete b.interactive.action.parameters), `${P}`, 'required'],
  ['flow_message_version must be 3', flow((b) => (params(b).flow_message_version = '2')), `${P}.flow_message_version`, 'invalid_value'],
  ['flow_token is required', flow((b) => delete params(b).flow_token), `${P}.flow_token`, 'required'],
  ['flow_id or flow_name is required', flow((b) => delete params(b).flow_id), `${P}.flow_id`, 'required'],
  ['flow_id and flow_name not both', flow((b) => (params(b).flow_name = 'booking')), `${P}.flow_id`, 'invalid_value'],
  ['flow_cta is required', flow((b) => delete params(b).flow_cta), `${P}.flow_cta`, 'required'],
  ['flow_cta at most 20 characters', flow((b) => (params(b).flow_cta = 'c'.repeat(21))), `${P}.flow_cta`, 'too_long'],
  ['flow_cta without emoji', flow((b) => (params(b).flow_cta = 'Book 📅')), `${P}.flow_cta`, 'invalid_value'],
  ['flow_cta without markdown', flow((b) => (params(b).flow_cta = 'Book *now*')), `${P}.flow_cta`, 'invalid_value'],
  ['flow_action is navigate or data_exchange', flow((b) => (params(b).flow_action = 'open')), `${P}.flow_action`, 'invalid_value'],
  ['navigate requires flow_action_payload', flow((b) => delete params(b).flow_action_payload), `${P}.flow_action_payload`, 'required'],
  ['navigate requires flow_action_payload.screen', flow((b) => delete params(b).flow_action_payload.screen), `${P}.flow_action_payload.screen`, 'required'],
  ['data_exchange omits flow_action_payload', flow((b) => (params(b).flow_action = 'data_exchange')), `${P}.flow_action_payload`, 'unrecognized'],
  ['mode is published or draft', flow((b) => (params(b).mode = 'live')), `${P}.mode`, 'invalid_value'],
  ['tags is an array of strings', flow((b) => (b.tags = ['ok', 7])), 'tags.1', 'invalid_type'],
  ['metadata is an object or a string', flow((b) => (b.metadata = 42)), 'metadata', 'invalid_type'],
  // A body nests at most 64 levels (metadata is the first): the 64th object down is refused.
  ['a body nests at most 64 levels', flow((b) => (b.metadata = nested(64))), `metadata${'.a'.repeat(63)}`, 'too_big'],
  ['unknown fields are refused', flow((b) => (b.interactive.action.parameters.flow_colour = 'red')), `${P}.flow_colour`, 'unrecognized'],
  ['product list header is required', products((b) => delete b.interactive.header), 'interactive.header', 'required'],
  ['product list header.type is text', products((b) => (b.interactive.header.type = 'image')), 'interactive.header.type', 'invalid_value'],
  ['product list header.type is required', products((b) => delete b.interactive.header.type), 'interactive.header.type', 'required'],
  ['product list header.text is required', products((b) => delete b.interactive.header.text), 'interactive.header.text', 'required'],
  ['product list body.text at most 1024', products((b) => (b.interactive.body.text = 'b'.repeat(1025))), 'interactive.body.text', 'too_long'],
  ['catalog_id is required', products((b) => delete b.interactive.action.catalog_id), 'interactive.action.catalog_id', 'required'],
  ['sections is required', products((b) => delete b.interactive.action.sections), 'interactive.action.sections', 'required'],
  ['at least 1 section', products((b) => (b.interactive.action.sections = [])), 'interactive.action.sections', 'too_small'],
  ['sections[].title is required', products((b) => delete b.interactive.action.sections[1].title), 'interactive.action.sections.1.title', 'required'],
  ['sections[].product_items is required', products((b) => delete b.interactive.action.sections[0].product_items), 'interactive.action.sections.0.product_items', 'required'],
  [
    'product_retailer_id is required',
    products((b) => (b.interactive.action.sections[0].product_items[1] = {})),
    'interactive.action.sections.0.product_items.1.product_retailer_id',
    'required',
  ],
  [
    'at most 30 product items in total',
    products((b) => (b.interactive.action.sections = [skus.slice(0, 16), skus.slice(16)].map((ids, i) => ({ title: `S${i}`, product_items: ids.map((id) => ({ product_retailer_id: id })) })))),
    'interactive.action.sections',
    'too_big',
  ],
];

const valid: [string, Body][] = [
  ['metadata nested as deep as a body may be', flow((b) => (b.metadata = nested(63)))],
  ['a navigate Flow with every optional field', flow((b) => Object.assign(b, { tags: ['spring'], metadata: { campaign: 'c-1' } }))],
  [
    'a data_exchange Flow by flow_name in draft mode, metadata as a string',
    flow((b) => {
      delete params(b).flow_id;
      delete params(b).flow_action_payload;
      Object.assign(params(b), { flow_name: 'signup', flow_action: 'data_exchange', mode: 'draft' });
      b.metadata = 'ref-77';
    }),
  ],
  ['a Flow without header, footer or flow_action (default navigate)', flow((b) => {
    delete b.interactive.header;
    delete b.interactive.footer;
    delete params(b).flow_action;
  })],
  ['limits counted in user-perceived characters', flow((b) => {
    b.interactive.header.text = '👍🏽'.repeat(60);
    params(b).flow_cta = 'Réservez maintenant!';
  })],
  ['a Product List of exactly 30 items across sections', products((b) => (b.interactive.action.sections = [skus.slice(0, 10), skus.slice(10, 30)].map((ids, i) => ({ title: `S${i}`, product_items: ids.map((id) => ({ product_retailer_id: id })) }))))],
  ['a Product List with footer, tags and metadata', products((b) => Object.assign(b, { tags: ['a', 'b'], metadata: { x: 1 } }, { interactive: { ...b.interactive, footer: { text: 'Prices include VAT' } } }))],
];

describe('POST /messaging/{appId}/messages: payload rules', () => {
  it.each(invalid)('%s: 400 validation_error on %s (%s)', async (_rule, body, field, code) => {
    const res = await send(server, tenant, body);
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field, code, message: expect.any(String) });
  });

  it.each(valid)('accepts %s: 202', async (_rule, body) => {
    const res = await send(server, tenant, body);
    expect(res.status).toBe(202);
    expect(res.body.data.message.status).toBe('queued');
  });

  it('reports every violation of one body at once', async () => {
    const res = await send(server, tenant, flow((b) => {
      b.interactive.body.text = 'b'.repeat(1025);
      params(b).flow_cta = 'c'.repeat(21);
      delete params(b).flow_id;
    }));
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(
      ['interactive.body.text', `${P}.flow_cta`, `${P}.flow_id`].sort(),
    );
  });

  it('answers invalid_request for a body that is not JSON', async () => {
    const res = await fetch(`${server.url}/api/v1/messaging/${tenant.appId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: '{"to": ',
    });
    expect(res.status).toBe(400);
    expectErrorEnvelope(await res.json(), 'invalid_request');
  });

  it('refuses metadata nested 30,000 deep where it passes 64 levels', async () => {
    // Written as text: building it as an object and stringifying would recurse 30,000 deep.
    const depth = 30_000;
    const text = JSON.stringify(flow()).replace(/}$/, `,"metadata":${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}}`);
    const res = await fetch(`${server.url}/api/v1/messaging/${tenant.appId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
      body: text,
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorEnvelope(body, 'validation_error');
    expect(body.error.details).toEqual([{ field: `metadata${'.a'.repeat(63)}`, code: 'too_big', message: 'must not nest deeper than 64 levels' }]);
  });
});

describe('GraphQL send mutations: the same rules, paths under input', () => {
  const flowRows = invalid.filter(([, body]) => body?.interactive?.type === 'flow' && body.type === 'interactive' && body.to);
  it.each(flowRows.filter(([, , , code]) => code !== 'required' && code !== 'invalid_type' && code !== 'unrecognized'))(
    'sendFlowMessage: %s',
    async (_rule, body, field, code) => {
      const res = await gql(
        server.url,
        tenant.accessToken,
        'mutation($appId: UUID!, $input: FlowMessageInput!) { sendFlowMessage(appId: $appId, input: $input) { message { messageId } } }',
        { appId: tenant.appId, input: body },
      );
      expect(res.body.errors![0]!.extensions!.code).toBe('validation_error');
      expect(res.body.errors![0]!.extensions!.details).toContainEqual({ field: `input.${field}`, code, message: expect.any(String) });
    },
  );

  it('sendProductListMessage: more than 30 items', async () => {
    const [, body] = invalid.find(([rule]) => rule === 'at most 30 product items in total')!;
    const res = await gql(
      server.url,
      tenant.accessToken,
      'mutation($appId: UUID!, $input: ProductListMessageInput!) { sendProductListMessage(appId: $appId, input: $input) { message { messageId } } }',
      { appId: tenant.appId, input: body },
    );
    expect(res.body.errors![0]!.extensions!.details).toContainEqual({ field: 'input.interactive.action.sections', code: 'too_big', message: expect.any(String) });
  });
});
