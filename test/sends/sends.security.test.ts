import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.js';
import { expectErrorEnvelope, gql, request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { flowBody, newPhone, userWrote } from './fixtures.js';

const { server } = useServer();
let owner: Tenant;
let phone: string;

beforeAll(async () => {
  owner = await server.tenant();
  phone = newPhone();
  await userWrote(server, owner, phone);
});

const post = (appId: string, path: 'messages' | 'inbound', token: string, body: unknown) =>
  request(`${server.url}/api/v1/messaging/${appId}/${path}`, { token, json: body });
const inboundText = () => ({ type: 'message', id: `wamid.sec.${Math.random()}`, from: phone, text: 'hi' });

describe('scopes and tenancy of the messaging paths', () => {
  it.each<[string, 'messages' | 'inbound', Scope[], number]>([
    ['sends with messages:send', 'messages', ['messages:send'], 202],
    ['sends refused with messages:ingest only', 'messages', ['messages:ingest', 'messages:read'], 403],
    ['inbound with messages:ingest', 'inbound', ['messages:ingest'], 200],
    ['inbound refused with messages:send only', 'inbound', ['messages:send', 'messages:read'], 403],
  ])('%s: %s', async (_name, path, scopes, status) => {
    const client = await server.client({ apps: [owner.appId], scopes });
    const res = await post(owner.appId, path, await client.token(), path === 'messages' ? flowBody(phone) : inboundText());
    expect(res.status).toBe(status);
    if (status === 403) expectErrorEnvelope(res.body, 'forbidden');
  });

  it("refuses another app's path with 403, storing nothing there", async () => {
    const intruder = await server.tenant();
    for (const path of ['messages', 'inbound'] as const) {
      const res = await post(owner.appId, path, intruder.accessToken, path === 'messages' ? flowBody(phone) : inboundText());
      expect(res.status).toBe(403);
      expectErrorEnvelope(res.body, 'forbidden');
    }
    const gres = await gql(server.url, intruder.accessToken, 'mutation($appId: UUID!, $m: JSON!) { sendMessage(appId: $appId, message: $m) { message { id: messageId } } }', {
      appId: owner.appId,
      m: flowBody(phone),
    });
    expect(gres.body.errors![0]!.extensions!.code).toBe('forbidden');
  });

  it("a status update cannot touch another app's message, and sentMessage is per app", async () => {
    const sent = await post(owner.appId, 'messages', owner.accessToken, flowBody(phone));
    const other = await server.tenant();
    const res = await post(other.appId, 'inbound', other.accessToken, {
      type: 'status',
      provider_message_id: sent.body.data.message.provider_message_id,
      status: 'read',
    });
    expect(res.status).toBe(404);
    const details = await gql(server.url, other.accessToken, 'query($appId: UUID!, $id: String!) { sentMessage(appId: $appId, messageId: $id) { kind } }', {
      appId: other.appId,
      id: sent.body.data.message.id,
    });
    expect(details.body.errors![0]!.extensions!.code).toBe('not_found');
  });

  it('answers 401 without a token and 400 for a malformed appId', async () => {
    const anonymous = await request(`${server.url}/api/v1/messaging/${owner.appId}/messages`, { json: flowBody(phone) });
    expect(anonymous.status).toBe(401);
    const malformed = await post('not-a-uuid', 'messages', owner.accessToken, flowBody(phone));
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details[0].field).toBe('appId');
  });

  it('answers 405 for another method', async () => {
    const res = await request(`${server.url}/api/v1/messaging/${owner.appId}/messages`, { token: owner.accessToken });
    expect(res.status).toBe(405);
  });
});
