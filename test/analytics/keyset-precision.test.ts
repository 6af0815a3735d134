import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, message, template } from './fixtures.js';

/*
 * Rows written beside the service (psql, an ETL job) may carry microseconds. A cursor names its
 * row's instant as a Date (milliseconds), so keyset instants are stored as timestamptz(3): with
 * microseconds a walk one row a page would skip rows that share the cursor's millisecond.
 */

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read', 'campaigns:read', 'analytics:read'] } });
const db = () => server.runtime.database.db;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await db().execute(q));
const BASE = '2026-10-20 10:00:00+00';

beforeAll(async () => {
  await importRecords(server, tenant.appId, [
    ...[1, 2, 3, 4, 5].map((n) => message(n, { id: `us-${n}`, channel: 'zz' })),
    ...[1, 2, 3, 4, 5].map((n) => campaign(700 + n, { tags: ['usec'] })),
    ...[1, 2, 3, 4, 5].map((n) => template(700 + n)),
  ]);
  // Another writer's instants, 300 µs apart (n * 300 µs after BASE).
  const app = tenant.appId;
  await db().execute(sql`update messages set created_at = ${BASE}::timestamptz + make_interval(secs => substr(id, 4)::int * 0.0003)
    where app_id = ${app} and channel = 'zz'`);
  await db().execute(sql`update campaigns set created_at = ${BASE}::timestamptz + make_interval(secs => (right(id::text, 3)::int - 700) * 0.0003)
    where app_id = ${app} and 'usec' = any(tags)`);
  await db().execute(sql`update templates set created_at = ${BASE}::timestamptz + make_interval(secs => (right(id::text, 3)::int - 700) * 0.0003)
    where app_id = ${app} and right(id::text, 3)::int > 700`);
});

type Page = { ids: string[]; cursor: string | null };

/** Follows nextCursor from the first page to the end (at most 20 pages). */
async function walk(first: () => Promise<Page>, next: (cursor: string) => Promise<Page>) {
  const seen: string[] = [];
  let page = await first();
  for (let i = 0; i < 20; i++) {
    seen.push(...page.ids);
    if (!page.cursor) break;
    page = await next(page.cursor);
  }
  return seen;
}

const restPage = async (path: string): Promise<Page> => {
  const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}${path}`, { token: tenant.accessToken });
  expect(res.status).toBe(200);
  return { ids: res.body.data.map((r: { id: string }) => r.id), cursor: res.body.pagination.nextCursor as string | null };
};

describe('keyset instants written with microseconds by another writer', () => {
  it('are stored to the millisecond, rounded', async () => {
    const rows = await query<{ id: string; at: string }>(
      sql`select id, to_char(created_at at time zone 'UTC', 'HH24:MI:SS.US') as at from messages where app_id = ${tenant.appId} and channel = 'zz' order by id`,
    );
    // 300, 600, 900, 1200, 1500 µs → .000, .001, .001, .001, .002
    expect(rows.map((r) => r.at)).toEqual(['10:00:00.000000', '10:00:00.001000', '10:00:00.001000', '10:00:00.001000', '10:00:00.002000']);
  });

  it('REST messages: a walk one row a page returns every row once, in list order', async () => {
    const expected = (await query<{ id: string }>(sql`select id from messages where app_id = ${tenant.appId} and channel = 'zz' order by created_at desc, id desc`)).map((r) => r.id);
    expect(expected).toHaveLength(5);
    const seen = await walk(() => restPage('/messages?channel=zz&limit=1'), (c) => restPage(`/messages?channel=zz&limit=1&cursor=${c}`));
    expect(seen).toEqual(expected);
  });

  it('REST campaigns, GET and POST search, and templates: the same', async () => {
    const expected = (await query<{ id: string }>(sql`select id from campaigns where app_id = ${tenant.appId} and 'usec' = any(tags) order by created_at desc, id desc`)).map((r) => r.id);
    expect(expected).toHaveLength(5);
    expect(await walk(() => restPage('/campaigns?tags=usec&limit=1'), (c) => restPage(`/campaigns?tags=usec&limit=1&cursor=${c}`))).toEqual(expected);

    const search = async (cursor?: string): Promise<Page> => {
      const res = await request(`${server.url}/api/v1/analytics/${tenant.appId}/campaigns/search`, {
        token: tenant.accessToken,
        json: { limit: 1, ...(cursor ? { cursor } : {}), filter: { tags: ['usec'] } },
      });
      expect(res.status).toBe(200);
      return { ids: res.body.data.map((r: { id: string }) => r.id), cursor: res.body.pagination.nextCursor as string | null };
    };
    expect(await walk(() => search(), search)).toEqual(expected);

    const templates = (await query<{ id: string }>(sql`select id from templates where app_id = ${tenant.appId} order by created_at desc, id desc`)).map((r) => r.id);
    expect(await walk(() => restPage('/templates?limit=1'), (c) => restPage(`/templates?limit=1&cursor=${c}`))).toEqual(templates);
  });

  it('GraphQL messages: the same', async () => {
    const expected = (await query<{ id: string }>(sql`select id from messages where app_id = ${tenant.appId} and channel = 'zz' order by created_at desc, id desc`)).map((r) => r.id);
    const page = async (after?: string): Promise<Page> => {
      const res = await gql(server.url, tenant.accessToken, `query ($appId: UUID!, $after: String) { messages(appId: $appId, channel: "zz", first: 1, after: $after) { nodes { id: messageId } pageInfo { endCursor hasNextPage } } }`, {
        appId: tenant.appId,
        after,
      });
      const conn = res.body.data.messages;
      return { ids: conn.nodes.map((n: { id: string }) => n.id), cursor: conn.pageInfo.hasNextPage ? (conn.pageInfo.endCursor as string) : null };
    };
    expect(await walk(() => page(), page)).toEqual(expected);
  });

  it('GraphQL messages and templates read backward one row a page: every row once, in list order', async () => {
    const lists = [
      { field: 'messages', id: 'messageId', filter: 'channel: "zz", ', expected: sql`select id from messages where app_id = ${tenant.appId} and channel = 'zz' order by created_at desc, id desc` },
      { field: 'templates', id: 'templateId', filter: '', expected: sql`select id from templates where app_id = ${tenant.appId} order by created_at desc, id desc` },
    ];
    for (const list of lists) {
      const expected = (await query<{ id: string }>(list.expected)).map((r) => r.id);
      const page = async (before?: string): Promise<Page> => {
        const res = await gql(
          server.url,
          tenant.accessToken,
          `query ($appId: UUID!, $before: String) { list: ${list.field}(appId: $appId, ${list.filter}last: 1, before: $before) { nodes { id: ${list.id} } pageInfo { startCursor hasPreviousPage } } }`,
          { appId: tenant.appId, before },
        );
        const conn = res.body.data.list;
        return { ids: conn.nodes.map((n: { id: string }) => n.id), cursor: conn.pageInfo.hasPreviousPage ? (conn.pageInfo.startCursor as string) : null };
      };
      expect((await walk(() => page(), page)).reverse()).toEqual(expected);
    }
  });
});
