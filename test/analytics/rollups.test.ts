import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { random } from '../../src/analytics/seed.js';
import { gql, request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, message } from './fixtures.js';

/*
 * The rollup-based metrics (message_rollups, campaign_rollups, contact_ranges, all kept by
 * triggers) against the funnel's raw-SQL definition computed from `messages`, on
 * random data that is imported, upserted, updated and deleted, over random unaligned ranges in
 * zones with DST, +05:45, +12:45 and a pre-1972 offset of -00:44:30.
 */

const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read', 'campaigns:read'] } });
let other: Tenant;
const rng = random(20260323);
const DAY = 86_400_000;
const WINDOW_START = Date.UTC(2026, 1, 20); // NY and London change to summer time inside the window
const WINDOW_DAYS = 50;
const OLD_START = Date.UTC(1971, 11, 20); // Africa/Monrovia: -00:44:30 until 1972-01-07
const ZONES = ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kathmandu', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];
const STATUSES = ['pending', 'queued', 'sent', 'delivered', 'read', 'failed'];
const campaigns = Array.from({ length: 6 }, (_, i) => campaign(900 + i, { tags: [['spring', 'vip'], ['vip'], ['été 2026'], ['spring'], ['black friday'], ['vip', 'x']][i] }));
const phones = Array.from({ length: 40 }, (_, i) => `4470000${String(i).padStart(5, '0')}`);

const db = () => server.runtime.database.db;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await db().execute(q));
const iso = (ms: number) => new Date(ms).toISOString();

/** A random message; `at` in ms. Seconds and milliseconds are random: nothing lines up with buckets. */
function randomMessage(n: number, at: number) {
  const outbound = rng.next() < 0.8;
  return message(n, {
    id: `r-${n}`,
    direction: outbound ? 'outbound' : 'inbound',
    status: outbound ? rng.pick(STATUSES) : rng.pick(['received', 'flow_handled']),
    user_phone: rng.pick(phones),
    campaign_id: outbound && rng.next() < 0.6 ? rng.pick(campaigns).id : null,
    cost: Math.round(rng.next() * 1_000_000) / 1_000_000,
    created_at: iso(at),
  });
}
const inWindow = () => WINDOW_START + Math.floor(rng.next() * WINDOW_DAYS * DAY);
const inOldWindow = () => OLD_START + Math.floor(rng.next() * 40 * DAY);

async function referenceDaily(appId: string, start: string, end: string, tz: string) {
  return query(sql`
    with days as (
      select d::date as day from generate_series((${start}::timestamptz at time zone ${tz})::date,
        ((${end}::timestamptz - interval '1 microsecond') at time zone ${tz})::date, interval '1 day') as d
    ),
    b as (
      select (created_at at time zone ${tz})::date as day,
             count(*) filter (where status in ('sent', 'delivered', 'read')) as sent,
             count(*) filter (where status in ('delivered', 'read')) as delivered,
             count(*) filter (where status = 'read') as read, count(*) filter (where status = 'failed') as failed, sum(cost) as cost
      from messages where app_id = ${appId} and direction = 'outbound' and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz
      group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as date, coalesce(b.sent, 0)::int as sent, coalesce(b.delivered, 0)::int as delivered,
           coalesce(b.read, 0)::int as read, coalesce(b.failed, 0)::int as failed, coalesce(b.cost, 0)::float8 as cost
    from days left join b on b.day = days.day order by days.day`);
}

async function referenceSummary(appId: string, start: string, end: string) {
  const [row] = await query<Record<string, number>>(sql`
    select count(*) filter (where status in ('sent', 'delivered', 'read'))::int as sent,
           count(*) filter (where status in ('delivered', 'read'))::int as delivered,
           count(*) filter (where status = 'read')::int as read, count(*) filter (where status = 'failed')::int as failed,
           coalesce(sum(cost), 0)::float8 as cost, count(distinct user_phone)::int as contacts
    from messages where app_id = ${appId} and direction = 'outbound' and created_at >= ${start}::timestamptz and created_at < ${end}::timestamptz`);
  return row;
}

async function referenceTag(appId: string, tag: string) {
  const [row] = await query<Record<string, number>>(sql`
    select count(*) filter (where status in ('sent', 'delivered', 'read'))::int as sent,
           count(*) filter (where status in ('delivered', 'read'))::int as delivered,
           count(*) filter (where status = 'read')::int as read, count(*) filter (where status = 'failed')::int as failed
    from messages where app_id = ${appId} and direction = 'outbound'
      and campaign_id in (select id from campaigns where app_id = ${appId} and ${tag} = any(tags))`);
  return row;
}

const get = (t: Tenant, path: string) => request(`${server.url}/api/v1/analytics/${t.appId}${path}`, { token: t.accessToken });

/** Random ranges in the window (unaligned, a few minutes to 45 days), plus the whole window. */
function ranges(count: number, base = WINDOW_START, days = WINDOW_DAYS) {
  const out: Array<[string, string]> = [[iso(base - DAY), iso(base + (days + 1) * DAY)]];
  for (let i = 0; i < count; i++) {
    const start = base - DAY + Math.floor(rng.next() * (days + 1) * DAY);
    const length = rng.next() < 0.2 ? Math.floor(rng.next() * 3_600_000) + 1 : Math.floor(rng.next() * 45 * DAY) + 1;
    out.push([iso(start), iso(start + length)]);
  }
  // Inside one bucket, exactly one bucket, and a range whose ends sit on bucket boundaries.
  out.push([iso(WINDOW_START + 7 * DAY + 61_000), iso(WINDOW_START + 7 * DAY + 420_000)]);
  out.push([iso(WINDOW_START + 9 * DAY + 900_000), iso(WINDOW_START + 9 * DAY + 1_800_000)]);
  out.push([iso(WINDOW_START + 3 * DAY), iso(WINDOW_START + 20 * DAY)]);
  return out;
}

async function expectRollupsExact(label: string) {
  for (const t of [tenant, other]) {
    for (const [start, end] of ranges(6)) {
      const tz = rng.pick(ZONES);
      const daily = await get(t, `/metrics/daily?startDate=${start}&endDate=${end}&timezone=${encodeURIComponent(tz)}`);
      expect(daily.status, `${label} daily ${tz} ${start} ${end}`).toBe(200);
      expect(daily.body.data, `${label} daily ${tz} ${start} ${end}`).toEqual(await referenceDaily(t.appId, start, end, tz));
      const summary = await get(t, `/metrics/summary?startDate=${start}&endDate=${end}`);
      expect(summary.body.data, `${label} summary ${start} ${end}`).toEqual(await referenceSummary(t.appId, start, end));
    }
    for (const tag of ['spring', 'vip', 'été 2026', 'black friday']) {
      const stats = await get(t, `/tags/${encodeURIComponent(tag)}/stats`);
      expect(stats.status).toBe(200);
      const { campaign_count: _c, last_used: _l, ...funnel } = stats.body.data;
      expect(funnel, `${label} tag ${tag}`).toEqual(await referenceTag(t.appId, tag));
    }
  }
  // The 1970s window in Africa/Monrovia: a local day there is not a whole number of buckets.
  const [start, end] = [iso(OLD_START - DAY + 123_457), iso(OLD_START + 41 * DAY - 98_765)];
  for (const tz of ['Africa/Monrovia', 'America/New_York']) {
    const daily = await get(tenant, `/metrics/daily?startDate=${start}&endDate=${end}&timezone=${tz}`);
    expect(daily.body.data, `${label} daily ${tz} 1972`).toEqual(await referenceDaily(tenant.appId, start, end, tz));
  }
  await expectTablesExact(label);
}

/** The rollup tables themselves equal a recomputation from messages (zero rows aside). */
async function expectTablesExact(label: string) {
  const nonzero = 'sent <> 0 or delivered <> 0 or read <> 0 or failed <> 0 or cost <> 0';
  const funnel = sql.raw(`count(*) filter (where status in ('sent', 'delivered', 'read'))::int as sent,
    count(*) filter (where status in ('delivered', 'read'))::int as delivered, count(*) filter (where status = 'read')::int as read,
    count(*) filter (where status = 'failed')::int as failed, sum(cost)::float8 as cost`);
  expect(await query(sql`select app_id, bucket_start, sent, delivered, read, failed, cost::float8 as cost from message_rollups where ${sql.raw(nonzero)} order by 1, 2`), label).toEqual(
    await query(sql`select * from (select app_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') as bucket_start, ${funnel}
      from messages where direction = 'outbound' group by 1, 2) x where ${sql.raw(nonzero)} order by 1, 2`),
  );
  expect(await query(sql`select app_id, campaign_id, sent, delivered, read, failed, cost::float8 as cost from campaign_rollups where ${sql.raw(nonzero)} order by 1, 2`), label).toEqual(
    await query(sql`select * from (select app_id, campaign_id, ${funnel} from messages where direction = 'outbound' and campaign_id is not null group by 1, 2) x
      where ${sql.raw(nonzero)} order by 1, 2`),
  );
  expect(await query(sql`select app_id, bucket_start, contacts from contact_rollups where contacts <> 0 order by 1, 2`), label).toEqual(
    await query(sql`select app_id, date_bin('15 minutes', last_seen, timestamptz '2000-01-01 00:00:00+00') as bucket_start, count(*)::int as contacts
      from contact_ranges group by 1, 2 order by 1, 2`),
  );
  expect(await query(sql`select app_id, user_phone, first_seen, last_seen from contact_ranges order by 1, 2`), label).toEqual(
    await query(sql`select app_id, user_phone, min(created_at) as first_seen, max(created_at) as last_seen from messages where direction = 'outbound' group by 1, 2 order by 1, 2`),
  );
}

beforeAll(async () => {
  other = await server.tenant({ scopes: ['analytics:read', 'campaigns:read'] });
  for (const t of [tenant, other]) {
    // The same message ids in both apps: each app's rollups only ever see its own rows.
    const records = [...campaigns, ...Array.from({ length: 500 }, (_, n) => randomMessage(n, inWindow()))];
    if (t === tenant) {
      records.push(...Array.from({ length: 150 }, (_, n) => randomMessage(1000 + n, inOldWindow())));
      // Monrovia's local midnight (00:44:30 UTC) splits the bucket 00:30-00:45: ten seconds
      // either side of it, one message each, on days before and after the 1972 change.
      for (let d = 0; d < 30; d++) {
        for (const [k, offset] of [[0, 2_660_000], [1, 2_680_000]] as const) {
          records.push({ ...randomMessage(2000 + d * 2 + k, OLD_START + d * DAY + offset), direction: 'outbound', status: 'read' });
        }
      }
    }
    await importRecords(server, t.appId, records);
  }
}, 60_000);

describe('rollups equal the raw-SQL definition', () => {
  it('after imports', async () => {
    await expectRollupsExact('import');
  }, 60_000);

  it('after an import that upserts existing ids with new status, time, direction, campaign, phone and cost', async () => {
    const upserts = Array.from({ length: 200 }, () => rng.int(0, 499)).map((n) => randomMessage(n, inWindow()));
    await importRecords(server, tenant.appId, [...new Map(upserts.map((m) => [m.id, m])).values()]);
    await expectRollupsExact('upsert');
  }, 60_000);

  it('after status updates, moves and deletes written in SQL, as any other writer would', async () => {
    const app = tenant.appId;
    await db().execute(sql`update messages set status = 'read', read_at = created_at where app_id = ${app} and status in ('sent', 'delivered') and id like 'r-1%'`);
    await db().execute(sql`update messages set status = 'failed', cost = 0 where app_id = ${app} and status = 'queued'`);
    await db().execute(sql`update messages set created_at = created_at + interval '7 hours 3 minutes' where app_id = ${app} and id like 'r-2%'`);
    await db().execute(sql`update messages set campaign_id = ${campaigns[2]!.id}::uuid where app_id = ${app} and id like 'r-3%'`);
    await db().execute(sql`update messages set direction = case direction when 'inbound' then 'outbound' else 'inbound' end where app_id = ${app} and id like 'r-4%'`);
    await db().execute(sql`update messages set user_phone = ${phones[0]!} where app_id = ${app} and id like 'r-5%'`);
    await db().execute(sql`update messages set error_message = 'touched' where app_id = ${app}`);
    await db().execute(sql`delete from messages where app_id = ${app} and (id like 'r-6%' or id like 'r-1%9')`);
    await db().execute(sql`delete from messages where app_id = ${app} and user_phone = ${phones[7]!}`);
    await expectRollupsExact('updates and deletes');
  }, 60_000);

  it('campaign.stats reads campaign_rollups and agrees with the raw funnel', async () => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { campaigns(appId: $app, first: 50) { nodes { id: campaignId stats { sent delivered read failed cost } } } }`, { app: tenant.appId });
    const raw = await query<any>(sql`
      select id, (select json_build_object(
        'sent', count(*) filter (where status in ('sent', 'delivered', 'read')), 'delivered', count(*) filter (where status in ('delivered', 'read')),
        'read', count(*) filter (where status = 'read'), 'failed', count(*) filter (where status = 'failed'), 'cost', coalesce(sum(cost), 0)::float8)
        from messages m where m.app_id = c.app_id and m.campaign_id = c.id and direction = 'outbound') as stats
      from campaigns c where app_id = ${tenant.appId} order by created_at desc, id desc`);
    expect(res.body.data.campaigns.nodes).toEqual(raw.map((r) => ({ id: r.id, stats: typeof r.stats === 'string' ? JSON.parse(r.stats) : r.stats })));
  });

  it('deleting an app removes its rollups; TRUNCATE empties them', async () => {
    const doomed = await server.tenant({ scopes: ['analytics:read'] });
    // Without campaign ids: the shared fixture's campaigns belong to another app, which an import refuses.
    await importRecords(server, doomed.appId, Array.from({ length: 20 }, (_, n) => ({ ...randomMessage(n, inWindow()), campaign_id: null })));
    const count = async () =>
      (await query<{ n: number }>(sql`select (select count(*) from message_rollups where app_id = ${doomed.appId})
        + (select count(*) from contact_ranges where app_id = ${doomed.appId}) as n`))[0]!.n;
    expect(Number(await count())).toBeGreaterThan(0);
    await db().execute(sql`delete from apps where id = ${doomed.appId}`);
    expect(Number(await count())).toBe(0);
    await expectTablesExact('app deleted');
    await db().execute(sql`truncate messages cascade`);
    expect(
      await query(sql`select 1 from message_rollups union all select 1 from campaign_rollups union all select 1 from contact_ranges
        union all select 1 from contact_rollups where contacts <> 0`),
    ).toEqual([]);
  }, 60_000);
});

describe.skipIf(!process.env.DATABASE_URL)('rollups under concurrent writers (PostgreSQL)', () => {
  it('stay exact when eight connections insert, update and delete the same contacts and buckets at once', async () => {
    const t = await server.tenant({ scopes: ['analytics:read'] });
    const pools = Array.from({ length: 8 }, () => postgres(server.databaseUrl!, { max: 1, onnotice: () => {} }));
    const at = WINDOW_START + 5 * DAY;
    const insert = (conn: postgres.TransactionSql, id: string, phone: string, status: string, ms: number) =>
      conn`insert into messages (app_id, id, source, destination, provider_from, provider_to, channel, direction, message_type, user_phone,
        conversation_key, provider_message_id, status, campaign_id, cost, created_at)
        values (${t.appId}, ${id}, 'a', 'b', 'c', 'd', 'whatsapp', 'outbound', 'text', ${phone}, 'k', 'p', ${status}, ${campaigns[0]!.id}, 0.25, ${iso(ms)})`;
    try {
      await Promise.all(
        pools.map(async (conn, w) => {
          for (let i = 0; i < 40; i++) {
            const phone = phones[i % 3]!;
            await conn.begin(async (tx) => {
              await insert(tx, `c-${w}-${i}`, phone, 'sent', at + ((w * 40 + i) % 7) * 60_000);
              await tx`update messages set status = 'read' where app_id = ${t.appId} and id = ${`c-${w}-${i - 1}`}`;
              if (i % 4 === 0) await tx`delete from messages where app_id = ${t.appId} and id = ${`c-${(w + 1) % 8}-${i - 2}`}`;
              if (i % 5 === 0) await tx`update messages set created_at = created_at + interval '1 day', user_phone = ${phones[(i + w) % 3]!} where app_id = ${t.appId} and id = ${`c-${w}-${i - 3}`}`;
            });
          }
        }),
      );
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    await expectTablesExact('concurrent writers');
    const [start, end] = [iso(at - DAY), iso(at + 3 * DAY)];
    expect((await get(t, `/metrics/summary?startDate=${start}&endDate=${end}`)).body.data).toEqual(await referenceSummary(t.appId, start, end));
  }, 60_000);

  it('a delete that recomputes a contact waits for, then sees, a concurrent insert for that contact', async () => {
    const t = await server.tenant({ scopes: ['analytics:read'] });
    const phone = phones[11]!;
    const row = (id: string, ms: number) => ({ ...randomMessage(0, ms), id, direction: 'outbound', user_phone: phone });
    await importRecords(server, t.appId, [row('early', WINDOW_START), row('late', WINDOW_START + DAY)]);
    const [a, b] = [postgres(server.databaseUrl!, { max: 1, onnotice: () => {} }), postgres(server.databaseUrl!, { max: 1, onnotice: () => {} })];
    try {
      // B inserts a later message for the contact and holds its contact_ranges row, uncommitted.
      await b.unsafe('begin');
      await b`insert into messages (app_id, id, source, destination, provider_from, provider_to, channel, direction, message_type, user_phone,
        conversation_key, provider_message_id, status, cost, created_at)
        values (${t.appId}, 'latest', 'a', 'b', 'c', 'd', 'whatsapp', 'outbound', 'text', ${phone}, 'k', 'p', 'sent', 0, ${iso(WINDOW_START + 2 * DAY)})`;
      // A deletes the contact's last committed message: its recompute must not miss B's row.
      await a.unsafe('begin');
      const deleting = a`delete from messages where app_id = ${t.appId} and id = 'late'`;
      const settled = deleting.then(() => 'done');
      expect(await Promise.race([settled, new Promise((r) => setTimeout(() => r('waiting'), 300))])).toBe('waiting');
      await b.unsafe('commit');
      await deleting;
      await a.unsafe('commit');
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
    const [range] = await query<{ last_seen: Date }>(sql`select last_seen from contact_ranges where app_id = ${t.appId} and user_phone = ${phone}`);
    expect(new Date(range!.last_seen).toISOString()).toBe(iso(WINDOW_START + 2 * DAY));
    await expectTablesExact('insert racing a delete');
  }, 30_000);
});
