import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { globalId, listEveryNode, seedEveryNode, type Listed } from './node-fixtures.js';

const { server, tenant: owner } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' }, tenant: true });
let stranger: Tenant;
let strangers: Listed[];

beforeAll(async () => {
  stranger = await server.tenant();
  await seedEveryNode(server, stranger);
  strangers = await listEveryNode(server, stranger);
});

const NODE = 'query($id: ID!) { node(id: $id) { __typename id } }';
const node = (token: string, id: unknown) => gql(server.url, token, NODE, { id });

describe('node(id:) tenancy and scopes', () => {
  it("another app's global id answers exactly as an unknown one: null, no error", async () => {
    for (const { type, key, row } of strangers) {
      const unknownRaw = type === 'Message' ? `wamid.unknown.${randomUUID()}` : key.replace(/[^:]+$/, randomUUID());
      const unknown = globalId(type, type === 'App' ? randomUUID() : `${owner.appId}:${unknownRaw}`);
      // Its own global id, and its key under the caller's app: neither reads the row.
      const spoofed = globalId(type, type === 'App' ? key : `${owner.appId}:${key}`);
      const answers = await Promise.all([row.id, spoofed, unknown].map((id) => node(owner.accessToken, id)));
      for (const res of answers) {
        expect(res.status, type).toBe(200);
        expect(res.body.data, type).toEqual({ node: null });
        expect(res.body.errors, type).toBeUndefined();
      }
    }
  });

  it("nodes(ids:) answers null for each of another app's ids", async () => {
    const res = await gql(server.url, owner.accessToken, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: strangers.map((s) => s.row.id) });
    expect(res.body.data).toEqual({ nodes: strangers.map(() => null) });
    expect(res.body.errors).toBeUndefined();
  });

  it("a token without the type's scope is refused, as the type's root fields refuse it", async () => {
    const client = await server.client({ apps: [stranger.appId], scopes: ['messages:read'] });
    const token = await client.token();
    const campaign = strangers.find((s) => s.type === 'Campaign')!;
    const refused = await node(token, campaign.row.id);
    expect(refused.body.data).toEqual({ node: null });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    const message = strangers.find((s) => s.type === 'Message')!;
    const allowed = await node(token, message.row.id);
    expect(allowed.body.data).toEqual({ node: { __typename: 'Message', id: message.row.id } });
    expect(allowed.body.errors).toBeUndefined();
  });

  it('participants, recordings, exceptions, DND windows and events need their own scope; sent message details messages:read', async () => {
    const client = await server.client({ apps: [stranger.appId], scopes: ['messages:read'] });
    const token = await client.token();
    for (const type of ['VideoParticipant', 'VideoRecording', 'AvailabilityException', 'DndWindow', 'AppEvent']) {
      const refused = await node(token, strangers.find((s) => s.type === type)!.row.id);
      expect(refused.body.data, type).toEqual({ node: null });
      expect(refused.body.errors?.[0]?.extensions?.code, type).toBe('forbidden');
    }
    const sent = strangers.find((s) => s.type === 'SentMessageDetails')!;
    const allowed = await node(token, sent.row.id);
    expect(allowed.body.data).toEqual({ node: { __typename: 'SentMessageDetails', id: sent.row.id } });
  });

  it('a malformed global id is a validation error, not a server error', async () => {
    const malformed = ['', 'not base64!', Buffer.from('NoColon').toString('base64'), Buffer.from('Viewer:x').toString('base64'), Buffer.from('Unknown:1').toString('base64'), Buffer.from('Campaign:').toString('base64'), Buffer.from('VideoParticipant:').toString('base64'), Buffer.from('SentMessage:x').toString('base64')];
    for (const id of malformed) {
      const res = await node(owner.accessToken, id);
      expect(res.status, id).toBe(200);
      expect(res.body.errors?.[0]?.extensions?.code, id).toBe('validation_error');
      expect(res.body.errors?.[0]?.message, id).toMatch(/Invalid global id/);
    }
  });

  it('a Node type with a raw id of the wrong shape is not found (null), as an unknown id', async () => {
    const participant = `${randomUUID()}:${randomUUID()}`;
    const wrongShape = [
      globalId('Campaign', 'not-a-uuid'),
      globalId('Campaign', `${owner.appId}:not-a-uuid`),
      globalId('App', 'x'),
      globalId('DndWindow', `${owner.appId}:not-a-uuid`),
      // A call's participant or recording is named with its call: without it, or with a call that is not a uuid.
      globalId('VideoParticipant', `${owner.appId}:${randomUUID()}`),
      globalId('VideoRecording', `${owner.appId}:not-a-uuid:${randomUUID()}`),
      globalId('VideoRecording', `not-a-uuid:${participant}`),
    ];
    for (const id of wrongShape) {
      const res = await node(owner.accessToken, id);
      expect(res.body.data).toEqual({ node: null });
      expect(res.body.errors).toBeUndefined();
    }
  });

  it('nodes(ids:) takes at most 100 ids', async () => {
    const ids = Array.from({ length: 101 }, () => globalId('App', owner.appId));
    const res = await gql(server.url, owner.accessToken, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('validation_error');
    expect(res.body.errors?.[0]?.message).toMatch(/at most 100 ids/);
  });

  it('node and nodes have a query cost: nodes by its number of ids', async () => {
    const one = await gql(server.url, owner.accessToken, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [globalId('App', owner.appId)] });
    const many = await gql(server.url, owner.accessToken, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 50 }, () => globalId('App', owner.appId)) });
    const cost = (res: typeof one) => (res.body as any).extensions?.cost?.requestedQueryCost as number;
    expect(cost(many)).toBeGreaterThan(cost(one));
  });
});
