import { beforeAll, describe, expect, it } from 'vitest';
import { campaign, importRecords, message, template } from '../analytics/fixtures.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, allDay, importedCall } from '../scheduling/fixtures.js';
import { videoCall } from '../video/fixtures.js';
import { subscribe } from '../webhooks/fixtures.js';

// Every connection pages backward (last/before) over the same rows, in the same order, as it
// pages forward (first/after); bad combinations and foreign cursors are refused with a path.
const { server, tenant } = useServer({ tenant: true, overrides: { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '0' } });

const q = (query: string, variables?: Record<string, unknown>, token = tenant.accessToken) => gql(server.url, token, query, variables);

/** Each connection: its root field, the raw id of its node, an optional filter, and its error type. */
const LISTS = [
  { field: 'messages', id: 'messageId', filter: '', type: 'validation_error' },
  { field: 'messages', id: 'messageId', filter: 'direction: inbound', type: 'validation_error' },
  { field: 'campaigns', id: 'campaignId', filter: '', type: 'validation_error' },
  { field: 'templates', id: 'templateId', filter: '', type: 'validation_error' },
  { field: 'scheduledCalls', id: 'callId', filter: '', type: 'invalid_request' },
  { field: 'videoCalls', id: 'callId', filter: '', type: 'validation_error' },
  { field: 'webhookDeliveries', id: 'deliveryId', filter: '', type: 'validation_error' },
  { field: 'events', id: 'eventId', filter: '', type: 'validation_error' },
] as const;
type List = (typeof LISTS)[number];

const tie = '2026-02-01T00:00:00.000Z';

beforeAll(async () => {
  // Rows of every list, some sharing their keyset time so the id breaks the tie.
  await importRecords(server, tenant.appId, [
    ...Array.from({ length: 13 }, (_, i) => message(i + 1, i >= 4 && i < 8 ? { created_at: tie } : {})),
    ...Array.from({ length: 8 }, (_, i) => campaign(i + 1, i < 3 ? { created_at: tie } : {})),
    ...Array.from({ length: 7 }, (_, i) => template(i + 1)),
    ...Array.from({ length: 8 }, (_, i) => videoCall(i + 1, i >= 2 && i < 5 ? { createdAt: tie } : {})),
    // Three agents: calls at the same time need one each.
    ...[1, 2, 3].map((n) => agent(n, 'UTC', allDay)),
    ...Array.from({ length: 8 }, (_, i) => importedCall(i + 1, i < 3 ? i + 1 : 1, i < 3 ? '2026-06-01T09:00:00.000Z' : `2026-06-0${i}T10:00:00.000Z`)),
  ]);
  // Inbound messages write events, and deliveries to the subscription.
  await subscribe(server, tenant, 'http://127.0.0.1:9/hook', ['message.received']);
  for (let i = 0; i < 7; i++) {
    const res = await request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, {
      token: tenant.accessToken,
      json: { type: 'message', id: `wamid.backward.${i}`, from: '447700900123', to: '447700900000', text: `hi ${i}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}
interface Connection {
  edges: { cursor: string; node: Record<string, string> }[];
  nodes: Record<string, string>[];
  pageInfo: PageInfo;
  limit: number;
  count: { count: number; precision: string };
}

/** One page of a list through its root field, or its field on App. */
async function page(list: List, args: string, variables: Record<string, unknown>, onApp = false): Promise<Connection> {
  const filter = list.filter && (onApp ? `filter: { ${list.filter} }` : list.filter);
  const all = [args, filter].filter(Boolean).join(', ');
  const selection = `edges { cursor node { ${list.id} } } nodes { ${list.id} } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } limit count { count precision }`;
  const declared = ['$app: UUID!', ...(args.includes('$n') ? ['$n: Int'] : []), ...(args.includes('$cursor') ? ['$cursor: String'] : [])].join(', ');
  const query = onApp
    ? `query(${declared}) { app(appId: $app) { list: ${list.field}(${all}) { ${selection} } } }`
    : `query(${declared}) { list: ${list.field}(appId: $app, ${all}) { ${selection} } }`;
  const res = await q(query, { app: tenant.appId, ...variables });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  const connection: Connection = onApp ? res.body.data.app.list : res.body.data.list;
  // The Relay fields agree with the edges whichever way the page was read.
  expect(connection.nodes).toEqual(connection.edges.map((e) => e.node));
  expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
  expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
  return connection;
}

/** The whole list read forward 3 at a time, then backward 3 at a time from its end. */
async function walk(list: List, onApp = false) {
  const forward: Connection[] = [];
  for (let cursor: string | null = null; ; ) {
    const p = await page(list, cursor ? 'first: $n, after: $cursor' : 'first: $n', { n: 3, cursor }, onApp);
    forward.push(p);
    if (!p.pageInfo.hasNextPage) break;
    cursor = p.pageInfo.endCursor;
  }
  const backward: Connection[] = [];
  for (let cursor: string | null = null; ; ) {
    const p = await page(list, cursor ? 'last: $n, before: $cursor' : 'last: $n', { n: 3, cursor }, onApp);
    backward.unshift(p);
    if (!p.pageInfo.hasPreviousPage) break;
    cursor = p.pageInfo.startCursor;
  }
  return { forward, backward };
}

const edgesOf = (pages: Connection[]) => pages.flatMap((p) => p.edges);

describe('every connection pages backward over the rows it pages forward', () => {
  for (const list of LISTS) {
    for (const onApp of [false, true]) {
      const name = `${onApp ? 'App.' : ''}${list.field}${list.filter ? ` (${list.filter})` : ''}`;
      it(`${name}: last/before from the end returns the forward rows, in order, with their cursors`, async () => {
        const { forward, backward } = await walk(list, onApp);
        const rows = edgesOf(forward);
        expect(rows.length, name).toBeGreaterThan(6);
        expect(new Set(rows.map((e) => e.node[list.id])).size).toBe(rows.length);
        expect(edgesOf(backward)).toEqual(rows);
        // Forward: more follow until the last page; backward: more precede until the first.
        forward.forEach((p, i) => expect(p.pageInfo.hasNextPage).toBe(i < forward.length - 1));
        backward.forEach((p, i) => expect(p.pageInfo.hasPreviousPage).toBe(i > 0));
        // The other direction is false, as Relay allows; the limit is the size asked for.
        for (const p of [...forward, ...backward]) {
          expect(p.limit).toBe(3);
          expect(forward.includes(p) ? p.pageInfo.hasPreviousPage : p.pageInfo.hasNextPage).toBe(false);
        }
        // Counts do not depend on the direction or the cursor.
        const counts = new Set([...forward, ...backward].map((p) => JSON.stringify(p.count)));
        expect([...counts]).toEqual([JSON.stringify({ count: rows.length, precision: 'EXACT' })]);
      });
    }
  }

  it('last without before is the end of the list; before alone reads the default page backward', async () => {
    const list = LISTS[0];
    const { forward } = await walk(list);
    const rows = edgesOf(forward);
    const end = await page(list, 'last: $n', { n: 5 });
    expect(end.edges).toEqual(rows.slice(-5));
    expect(end.pageInfo.hasPreviousPage).toBe(true);
    const lastCursor = rows.at(-1)!.cursor;
    const beforeOnly = await page(list, 'before: $cursor', { cursor: lastCursor });
    expect(beforeOnly.edges).toEqual(rows.slice(0, -1));
    expect(beforeOnly.limit).toBe(50);
    expect(beforeOnly.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
    // first with before: the first rows of those before the cursor.
    const firstBefore = await page(list, 'first: $n, before: $cursor', { n: 2, cursor: lastCursor });
    expect(firstBefore.edges).toEqual(rows.slice(0, 2));
    expect(firstBefore.pageInfo.hasNextPage).toBe(true);
  });
});

describe('page arguments are validated like first and after', () => {
  const detailsOf = (res: { body: any }) => ({ code: res.body.errors?.[0]?.extensions?.code, details: res.body.errors?.[0]?.extensions?.details });

  for (const list of LISTS.filter((l) => !l.filter)) {
    it(`${list.field}: first with last, after with before, and last over 200 are refused at their field`, async () => {
      const run = (args: string, variables: Record<string, unknown> = {}) =>
        q(`query($app: UUID!${args.includes('$cursor') ? ', $cursor: String' : ''}) { ${list.field}(appId: $app, ${args}) { nodes { ${list.id} } } }`, { app: tenant.appId, ...variables });
      const cursor = (await page(list, 'first: $n', { n: 1 })).pageInfo.endCursor;

      const both = detailsOf(await run('first: 2, last: 2'));
      expect(both).toEqual({ code: list.type, details: [{ field: 'last', code: 'invalid_value', message: expect.stringContaining('not both') }] });
      const bounds = detailsOf(await run('after: $cursor, before: $cursor', { cursor }));
      expect(bounds).toEqual({ code: list.type, details: [{ field: 'before', code: 'invalid_value', message: expect.stringContaining('not both') }] });

      // last is checked as first is: the same codes, at its own name.
      for (const size of [201, 0]) {
        const first = detailsOf(await run(`first: ${size}`));
        const last = detailsOf(await run(`last: ${size}`));
        expect(first.code).toBe(list.type);
        expect(last).toEqual({ code: first.code, details: first.details.map((d: { field: string }) => ({ ...d, field: 'last' })) });
      }
      const appLast = await q(`query($app: UUID!) { app(appId: $app) { ${list.field}(last: 201) { nodes { ${list.id} } } } }`, { app: tenant.appId });
      expect(detailsOf(appLast).details).toEqual([expect.objectContaining({ field: 'last', code: 'too_big' })]);
    });
  }

  it("a cursor of another app's list is refused as before, as it is as after", async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, [message(1), message(2), message(3)]);
    const foreign = (await q(`query($app: UUID!) { messages(appId: $app, first: 1) { pageInfo { endCursor } } }`, { app: other.appId }, other.accessToken)).body.data
      .messages.pageInfo.endCursor;
    for (const [list, cursor] of [
      [LISTS[0], foreign],
      [LISTS[2], foreign],
      [LISTS[0], `${foreign}x`],
    ] as const) {
      const res = await q(`query($app: UUID!, $cursor: String) { ${list.field}(appId: $app, last: 2, before: $cursor) { nodes { ${list.id} } } }`, {
        app: tenant.appId,
        cursor,
      });
      expect(res.body.data).toBeNull();
      expect(detailsOf(res)).toEqual({ code: 'validation_error', details: [{ field: 'before', code: 'invalid_value', message: 'is not a cursor of this list' }] });
    }
    // Event cursors are event ids: one of another app is no event of this one.
    const otherEvent = await request(`${server.url}/api/v1/messaging/${other.appId}/inbound`, {
      token: other.accessToken,
      json: { type: 'message', id: 'wamid.backward.other', from: '447700900123', to: '447700900000', text: 'hi' },
    });
    expect(otherEvent.status).toBe(200);
    const otherId = (await q(`query($app: UUID!) { events(appId: $app, last: 1) { nodes { eventId } } }`, { app: other.appId }, other.accessToken)).body.data.events
      .nodes[0].eventId;
    const res = await q(`query($app: UUID!, $cursor: String) { events(appId: $app, last: 2, before: $cursor) { nodes { eventId } } }`, { app: tenant.appId, cursor: otherId });
    expect(detailsOf(res)).toEqual({ code: 'validation_error', details: [{ field: 'before', code: 'invalid_value', message: 'is not an event of this app' }] });
  });
});
