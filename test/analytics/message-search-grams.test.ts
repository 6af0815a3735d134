import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { gramSearch } from '../../src/analytics/messages.service.js';
import { messages } from '../../src/analytics/tables.js';
import { rowsOf } from '../../src/db/raw.js';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { importRecords, message } from './fixtures.js';

// Search by a long term goes through the 5-gram index first. These tests hold it to the plain
// meaning: a case-insensitive substring of any of the five fields, whatever the term looks like.
const { server, tenant } = useServer({ tenant: { scopes: ['messages:read'] } });
const other = { appId: '' };

const ROWS = 1500;
// Phones that share their first digits, as one country's numbers do; the business number is in every row.
const phone = (n: number) => `4477${String((n * 7919) % 100_000_000).padStart(8, '0')}`;
const records = Array.from({ length: ROWS }, (_, i) =>
  message(i + 1, {
    id: `gram-${i + 1}`,
    user_phone: phone(i),
    provider_from: i % 2 ? phone(i) : '447700900000',
    provider_to: i % 2 ? '447700900000' : phone(i),
    conversation_key: `conv-${phone(i)}-${i % 30}`,
    provider_message_id: i === 7 ? 'wamid.Ünïcödé-ÉTÉ-%_\\x' : `wamid.HBgM${(i * 104729).toString(36).toUpperCase()}`,
  }),
);

beforeAll(async () => {
  await importRecords(server, tenant.appId, records);
  const foreign = await server.tenant({ scopes: ['messages:read'] });
  other.appId = foreign.appId;
  await importRecords(server, foreign.appId, [message(1, { id: 'foreign-1', user_phone: phone(3) })]);
  await server.runtime.database.db.execute(sql`analyze messages`);
});

/** Every id the REST search returns, page after page. */
async function searched(term: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: URLSearchParams = new URLSearchParams({ search: term, limit: '200', ...(cursor && { cursor }) });
    const res = await request<{ data: { id: string }[]; pagination: { nextCursor: string | null } }>(`${server.url}/api/v1/analytics/${tenant.appId}/messages?${query}`, { token: tenant.accessToken });
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((m) => m.id));
    cursor = res.body.pagination.nextCursor;
  } while (cursor);
  return ids.sort();
}

/** The same search done in JavaScript over what was imported. */
const expected = (term: string) =>
  records
    .filter((r) => [r.user_phone, r.provider_message_id, r.conversation_key, r.provider_from, r.provider_to].some((f) => String(f).toLowerCase().includes(term.toLowerCase())))
    .map((r) => r.id)
    .sort();

describe('message search through the 5-gram index', () => {
  it.each([
    ['a whole phone number', phone(3)],
    ['the end of a phone number', phone(42).slice(-5)],
    ['exactly five digits', phone(99).slice(4, 9)],
    ['four digits (no 5-gram: the trigram path)', phone(7).slice(-4)],
    ['three digits', phone(5).slice(-3)],
    ['a provider id in another case', `hbgm${(11 * 104729).toString(36)}`],
    ['accented letters in another case', 'ünïcÖdÉ-été'],
    ['%, _ and \\ taken literally', 'ÉTÉ-%_\\X'],
    ['the business number in every row', '447700900000'],
    ['a term in no row', '999999999999'],
  ])('%s finds exactly the rows that contain it', async (_name, term) => {
    const want = expected(term);
    expect(await searched(term)).toEqual(want);
  });

  it('never finds another app’s rows', async () => {
    expect(await searched(phone(3))).not.toContain('foreign-1');
  });

  it('a count over a search that matches nothing is exact and zero', async () => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { messages(appId: $app, search: "123456789012") { count { count precision } } }`, { app: tenant.appId });
    expect(res.body.data.messages.count).toEqual({ count: 0, precision: 'EXACT' });
  });

  // A table this small is read whole, so sequential scans are turned off: the test pins that the
  // query's gram condition is the index's expression, which a reordered column list would break.
  it('the gram condition of a long term is answered by the gram index', async () => {
    const db = server.runtime.database.db;
    const term = phone(3);
    const query = db
      .select({ id: messages.id })
      .from(messages)
      .where(gramSearch(sql`${term}`)[0]);
    const explained = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return rowsOf<{ 'QUERY PLAN': unknown }>(await tx.execute(sql`explain (format json) ${query}`))[0];
    });
    const plan = JSON.stringify(explained!['QUERY PLAN']);
    expect(plan).toContain('Bitmap Index Scan');
    expect(plan).toContain('messages_search_grams_idx');
  });
});
