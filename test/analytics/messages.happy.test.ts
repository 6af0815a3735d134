import { beforeAll, describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['messages:read'] } });
const list = (query = '') => request(`${server.url}/api/v1/analytics/${tenant.appId}/messages${query}`, { token: tenant.accessToken });

beforeAll(async () => {
  // 60 messages, one an hour from 2026-03-01T13:00Z; two share a created_at to test the id tiebreak.
  await importRecords(server, tenant.appId, [
    ...Array.from({ length: 59 }, (_, i) => message(i + 1)),
    message(60, { created_at: message(59).created_at }),
  ]);
});

const specFields = [
  'id', 'source', 'destination', 'provider_from', 'provider_to', 'channel', 'direction', 'message_type', 'user_phone',
  'conversation_key', 'provider_message_id', 'status', 'sent_at', 'failed_at', 'error_message', 'created_at',
];

describe('GET /analytics/{appId}/messages', () => {
  it('returns list items, meta.timestamp and pagination, newest first, default limit 50', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(50);
    expect(Object.keys(res.body.data[0]).sort()).toEqual([...specFields].sort());
    expect(res.body.pagination).toEqual({ limit: 50, hasMore: true, nextCursor: expect.any(String) });
    expect(Date.parse(res.body.meta.timestamp)).not.toBeNaN();
    // created_at desc, id desc: msg-00060 and msg-00059 share a timestamp.
    expect(res.body.data.slice(0, 3).map((m: { id: string }) => m.id)).toEqual(['msg-00060', 'msg-00059', 'msg-00058']);
    expect(res.body.data[0].created_at).toBe('2026-03-03T23:00:00.000Z');
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
  });

  it('walking every page returns each row once, even with rows inserted meanwhile', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res = await list(`?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((m: { id: string }) => m.id));
      cursor = res.body.pagination.nextCursor;
      if (page++ === 2) {
        // Newer and older-than-cursor rows arrive during the walk: newer ones are not seen, none repeats.
        await importRecords(server, tenant.appId, [message(500), message(-500, { id: 'msg-late-old' })]);
      }
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain('msg-late-old');
    expect(seen).not.toContain('msg-00500');
    expect(seen.filter((id) => id.startsWith('msg-0'))).toHaveLength(60);
  });

  it.each([
    ['?status=failed', (m: any) => m.status === 'failed'],
    ['?direction=inbound', (m: any) => m.direction === 'inbound'],
    ['?channel=sms', (m: any) => m.channel === 'sms'],
    ['?messageType=interactive', (m: any) => m.message_type === 'interactive'],
    ['?source=crm&destination=whatsapp', (m: any) => m.source === 'crm' && m.destination === 'whatsapp'],
  ])('filters %s', async (query, predicate) => {
    const res = await list(`${query}&limit=200`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every(predicate)).toBe(true);
  });

  it('search is a case-insensitive substring over the five fields', async () => {
    await importRecords(server, tenant.appId, [message(900, { conversation_key: 'Order-ABC-42', provider_message_id: 'wamid.X%_Y' })]);
    expect((await list('?search=abc-4')).body.data.map((m: any) => m.id)).toEqual(['msg-00900']);
    expect((await list('?search=WAMID.X%25_')).body.data.map((m: any) => m.id)).toEqual(['msg-00900']);
    // % and _ are literal, not wildcards.
    expect((await list('?search=%25%25%25')).body.data).toEqual([]);
    expect((await list('?search=447700000017')).body.data.map((m: any) => m.id)).toEqual(['msg-00017']);
  });

  it('startDate and endDate are whole UTC days, both inclusive', async () => {
    const res = await list('?startDate=2026-03-02&endDate=2026-03-02&limit=200');
    const days = new Set(res.body.data.map((m: any) => m.created_at.slice(0, 10)));
    expect([...days]).toEqual(['2026-03-02']);
    expect(res.body.data).toHaveLength(24);
  });

  it('GraphQL messages agrees with the REST list', async () => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { messages(appId: $app, first: 3, status: read) { limit pageInfo { hasNextPage endCursor } nodes { id: messageId userPhone createdAt } } }`, { app: tenant.appId });
    const rest = await list('?limit=3&status=read');
    expect(res.body.data.messages.nodes.map((m: any) => m.id)).toEqual(rest.body.data.map((m: any) => m.id));
    expect(res.body.data.messages.pageInfo.hasNextPage).toBe(true);
  });
});
