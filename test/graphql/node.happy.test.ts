import { isInterfaceType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { useServer } from '../helpers/use-server.js';
import { listEveryNode, seedEveryNode, tenantGql, type Listed } from './node-fixtures.js';
import { newPhone, productListBody, userWrote } from '../sends/fixtures.js';

const { server, tenant } = useServer({ overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' }, tenant: true });
let listed: Listed[];

beforeAll(async () => {
  await seedEveryNode(server, tenant);
  listed = await listEveryNode(server, tenant);
});

describe('global object identification', () => {
  it('node(id:) refetches every Node type with the fields its list gave', async () => {
    for (const { type, fields, row } of listed) {
      const data = await tenantGql(server, tenant, `query($id: ID!) { node(id: $id) { __typename id ... on ${type} { ${fields} } } }`, { id: row.id });
      expect(data.node, type).toEqual({ __typename: type, ...row });
    }
  });

  it('the fixtures cover every type that implements Node in the schema', () => {
    const node = schema.getType('Node');
    if (!node || !isInterfaceType(node)) throw new Error('no Node interface');
    const implementations = schema.getPossibleTypes(node).map((t) => t.name).sort();
    expect(listed.map((l) => l.type).sort()).toEqual(implementations);
  });

  it('the global id is opaque and differs from the raw id, which is a field of its own', () => {
    for (const { type, raw, row } of listed) {
      expect(row.id, type).not.toBe(row[raw]);
      expect(Buffer.from(String(row.id), 'base64').toString('utf8'), type).toMatch(new RegExp(`^${type}:.*${row[raw]}$`));
    }
  });

  it('nodes(ids:) answers in order, null for an unknown id, a repeated id twice', async () => {
    const ids = listed.map((l) => l.row.id);
    const unknown = Buffer.from(`Campaign:${tenant.appId}:00000000-0000-4000-8000-000000000000`).toString('base64');
    const data = await tenantGql(server, tenant, 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }', { ids: [...ids, unknown, ids[0]] });
    expect(data.nodes).toEqual([...listed.map((l) => ({ __typename: l.type, id: l.row.id })), null, { __typename: 'App', id: ids[0] }]);
  });

  it('the same id asked for by several fields of one operation resolves in each', async () => {
    for (const { type, row } of listed) {
      const data = await tenantGql(server, tenant, 'query($id: ID!) { a: node(id: $id) { __typename id } b: node(id: $id) { __typename id } c: nodes(ids: [$id, $id]) { __typename id } }', { id: row.id });
      const one = { __typename: type, id: row.id };
      expect(data, type).toEqual({ a: one, b: one, c: [one, one] });
    }
  });

  it('nodes(ids:) loads one query per type, whatever the number of ids', async () => {
    const messages = await tenantGql(server, tenant, 'query($app: UUID!) { campaigns(appId: $app) { nodes { id } } }');
    const ids = Array.from({ length: 50 }, () => messages.campaigns.nodes[0].id);
    const db = server.runtime.database.db as unknown as { select: (...args: unknown[]) => unknown };
    const select = db.select;
    let selects = 0;
    db.select = function (this: unknown, ...args: unknown[]) {
      selects++;
      return select.apply(this, args);
    };
    try {
      const data = await tenantGql(server, tenant, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
      expect(data.nodes).toHaveLength(50);
    } finally {
      db.select = select;
    }
    expect(selects).toBeLessThanOrEqual(1);
  });

  it('nodes(ids:) loads a Node with a parent or a joined row in one query per type too', async () => {
    const db = server.runtime.database.db as unknown as { select: (...args: unknown[]) => unknown };
    const select = db.select;
    for (const type of ['VideoParticipant', 'VideoRecording', 'SentMessageDetails', 'AvailabilityException', 'DndWindow']) {
      const { row } = listed.find((l) => l.type === type)!;
      let selects = 0;
      db.select = function (this: unknown, ...args: unknown[]) {
        selects++;
        return select.apply(this, args);
      };
      try {
        const data = await tenantGql(server, tenant, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 20 }, () => row.id) });
        expect(data.nodes, type).toEqual(Array.from({ length: 20 }, () => ({ id: row.id })));
      } finally {
        db.select = select;
      }
      expect(selects, type).toBeLessThanOrEqual(1);
    }
  });

  it("a send's receipt has the raw messageId and no global id of its own; its details are the SentMessageDetails Node", async () => {
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const data = await tenantGql(server, tenant, 'mutation($app: UUID!, $m: JSON!) { sendMessage(appId: $app, message: $m) { message { messageId status details { id messageId kind } } } }', {
      m: productListBody(phone, 'cat-node', [['p-1']]),
    });
    const receipt = data.sendMessage.message;
    expect(receipt.details.messageId).toBe(receipt.messageId);
    const again = await tenantGql(server, tenant, 'query($id: ID!) { node(id: $id) { __typename ... on SentMessageDetails { id messageId kind } } }', { id: receipt.details.id });
    expect(again.node).toEqual({ __typename: 'SentMessageDetails', ...receipt.details });
  });
});
