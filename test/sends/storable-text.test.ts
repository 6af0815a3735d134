import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { flowBody, flowTemplate, gql, importRecords, inbound, newPhone, newToken, send, templateBody, userWrote } from './fixtures.js';

// Text PostgreSQL cannot store (NUL, or a lone UTF-16 surrogate such as the JSON escape
// "\ud800" without its pair) is refused with 400 validation_error naming the field's dotted path,
// before anything is written. Sends are stored in jsonb, which on its own would refuse a lone
// surrogate with a 500 and a NUL with a detail whose field is "".

const { server, tenant } = useServer({ tenant: true });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [flowTemplate(1)]);
});

const LONE = 'a\ud800b';
const NUL = 'a\u0000b';
const SURROGATE_MESSAGE = /lone UTF-16 surrogate/;

const outbound = async (phone: string) =>
  (await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=${phone}&direction=outbound`, { token: tenant.accessToken })).body.data;

/** A Flow body with `edit` applied to a copy. */
function flow(phone: string, edit: (body: any) => void) {
  const body: any = flowBody(phone);
  edit(body);
  return body;
}

function expectRefused(res: { status: number; body: any }, field: string, message: RegExp) {
  expect(res.status).toBe(400);
  expectErrorEnvelope(res.body, 'validation_error');
  expect(res.body.error.details).toContainEqual({ field, code: 'invalid_format', message: expect.stringMatching(message) });
}

const P = 'interactive.action.parameters';

describe('POST /messaging/{appId}/messages: text PostgreSQL cannot store', () => {
  it.each([
    ['a lone surrogate in the body text', (b: any) => (b.interactive.body.text = LONE), 'interactive.body.text', SURROGATE_MESSAGE],
    ['a lone low surrogate in the header', (b: any) => (b.interactive.header.text = 'x\udc00'), 'interactive.header.text', SURROGATE_MESSAGE],
    ['a lone surrogate in flow_token', (b: any) => (b.interactive.action.parameters.flow_token = `t-${LONE}`), `${P}.flow_token`, SURROGATE_MESSAGE],
    ['a NUL in the body text', (b: any) => (b.interactive.body.text = NUL), 'interactive.body.text', /NUL/],
    ['a NUL in flow_token', (b: any) => (b.interactive.action.parameters.flow_token = `t-${NUL}`), `${P}.flow_token`, /NUL/],
    ['a lone surrogate inside the Flow data', (b: any) => (b.interactive.action.parameters.flow_action_payload.data = { note: LONE }), `${P}.flow_action_payload.data.note`, SURROGATE_MESSAGE],
    ['a NUL in a key of the Flow data', (b: any) => (b.interactive.action.parameters.flow_action_payload.data = { [NUL]: 1 }), `${P}.flow_action_payload.data.${NUL}`, /key must not contain NUL/],
    ['a lone surrogate in metadata', (b: any) => (b.metadata = { source: LONE }), 'metadata.source', SURROGATE_MESSAGE],
    ['a lone surrogate in a tag', (b: any) => (b.tags = ['ok', LONE]), 'tags.1', SURROGATE_MESSAGE],
  ])('%s: 400 validation_error on its path, nothing sent', async (_what, edit, field, message) => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flow(phone, edit);
    expectRefused(await send(server, tenant, body, { 'Idempotency-Key': `k-${randomUUID()}` }), field, message);
    expect(await outbound(phone)).toEqual([]);
  });

  it('a template parameter with a lone surrogate is refused on its path', async () => {
    const phone = newPhone();
    const body = templateBody(phone, { name: 'book_table_1', parameters: ['Ann', LONE], flow_token: newToken() });
    expectRefused(await send(server, tenant, body), 'template.parameters.1', SURROGATE_MESSAGE);
    expect(await outbound(phone)).toEqual([]);
  });

  it('every problem is listed at once, alongside the schema issues; the corrected body sends', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flow(phone, (b) => {
      b.interactive.body.text = LONE;
      b.interactive.footer.text = NUL;
      b.interactive.action.parameters.flow_cta = 'x'.repeat(21);
    });
    const res = await send(server, tenant, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([`${P}.flow_cta`, 'interactive.body.text', 'interactive.footer.text']);
    // Nothing was written: the same flow_token is still free.
    const fixed = flow(phone, (b) => (b.interactive.action.parameters.flow_token = body.interactive.action.parameters.flow_token));
    expect((await send(server, tenant, fixed)).status).toBe(202);
  });

  it('GraphQL sendMessage and sendFlowMessage: validation_error on the path below the argument', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flow(phone, (b) => (b.interactive.body.text = LONE));
    const any = await gql(server.url, tenant.accessToken, 'mutation($appId: UUID!, $m: JSON!) { sendMessage(appId: $appId, message: $m) { message { id: messageId } } }', {
      appId: tenant.appId,
      m: body,
    });
    expect(any.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'message.interactive.body.text', code: 'invalid_format', message: expect.stringMatching(SURROGATE_MESSAGE) }],
    });
    const typed = await gql(
      server.url,
      tenant.accessToken,
      'mutation($appId: UUID!, $input: FlowMessageInput!) { sendFlowMessage(appId: $appId, input: $input) { message { id: messageId } } }',
      { appId: tenant.appId, input: flow(phone, (b) => (b.interactive.action.parameters.flow_token = `t-${NUL}`)) },
    );
    expect(typed.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: [{ field: `input.${P}.flow_token`, code: 'invalid_format', message: expect.stringMatching(/NUL/) }],
    });
    expect(await outbound(phone)).toEqual([]);
  });
});

describe('POST /messaging/{appId}/inbound: text PostgreSQL cannot store', () => {
  it('a Flow reply whose answers hold a lone surrogate is refused on its path, and not linked', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    expect((await send(server, tenant, body)).status).toBe(202);
    const token = body.interactive.action.parameters.flow_token;
    const reply = (response: object) => ({ type: 'message', id: `wamid.${randomUUID()}`, from: phone, flow_reply: { flow_token: token, response } });
    expectRefused(await inbound(server, tenant, reply({ time: LONE })), 'flow_reply.response.time', SURROGATE_MESSAGE);
    expectRefused(await inbound(server, tenant, { type: 'message', id: `wamid.${randomUUID()}`, from: phone, text: NUL }), 'text', /NUL/);
    expectRefused(await inbound(server, tenant, { type: 'message', id: `wamid.${LONE}`, from: phone }), 'id', SURROGATE_MESSAGE);
    const ok = await inbound(server, tenant, reply({ time: '19:30' }));
    expect(ok.status).toBe(200);
    expect(ok.body.data.applied).toBe(true);
  });

  it('GraphQL ingestInboundEvent refuses the same event on the path below the argument', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = flowBody(phone);
    expect((await send(server, tenant, body)).status).toBe(202);
    const res = await gql(server.url, tenant.accessToken, 'mutation($appId: UUID!, $e: JSON!) { ingestInboundEvent(appId: $appId, event: $e) { applied } }', {
      appId: tenant.appId,
      e: { type: 'message', id: `wamid.${randomUUID()}`, from: phone, flow_reply: { flow_token: body.interactive.action.parameters.flow_token, response: { [LONE]: 1 } } },
    });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: [{ field: `event.flow_reply.response.${LONE}`, code: 'invalid_format', message: expect.stringMatching(/^key must not contain a lone UTF-16 surrogate/) }],
    });
  });
});

describe('numbers JSON.parse reads as Infinity', () => {
  // JSON.stringify would write Infinity back as null: the value would be stored changed.
  it('1e999 inside the Flow data is 400 validation_error on its path, nothing sent', async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const body = JSON.stringify(flow(phone, (b) => (b.interactive.action.parameters.flow_action_payload.data = { party: 'HUGE' }))).replace('"HUGE"', '-1e999');
    const res = await request(`${server.url}/api/v1/messaging/${tenant.appId}/messages`, { token: tenant.accessToken, body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectErrorEnvelope(res.body, 'validation_error');
    expect(res.body.error.details).toContainEqual({ field: `${P}.flow_action_payload.data.party`, code: 'invalid_value', message: expect.stringMatching(/finite number/) });
    expect(await outbound(phone)).toEqual([]);
  });

  it('1e999 in a video call\'s metadata is refused under GraphQL too', async () => {
    const query = 'mutation($app: UUID!, $input: CreateVideoCallInput!) { createVideoCall(appId: $app, input: $input) { callId } }';
    const contactcenter = { conversationId: 'c', ccHostOrigin: 'o', ccTargetEnv: 'e', ccLangTag: 'en', ccUsePopupAuth: false };
    const text = JSON.stringify({ query, variables: { app: tenant.appId, input: { presetId: 'p', contactcenter, metadata: { n: 'HUGE' } } } }).replace('"HUGE"', '1e999');
    const res = await request(`${server.url}/graphql`, { token: tenant.accessToken, body: text, headers: { 'content-type': 'application/json' } });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: [{ field: 'input.metadata.n', code: 'invalid_value' }] });
  });
});

