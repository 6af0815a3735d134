import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyField, seedAnalytics } from '../../src/analytics/seed.js';
import { campaigns, messages, templates } from '../../src/analytics/tables.js';
import { rowsOf } from '../../src/db/raw.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });
const progress: number[] = [];

beforeAll(async () => {
  // On PostgreSQL the messages go in with COPY; on PGlite with INSERTs.
  await seedAnalytics({ db: server.runtime.database.db, copy: server.runtime.database.kind === 'postgres', appId: tenant.appId, messages: 12_000, progress: (n) => progress.push(n) });
});

describe('seed', () => {
  it('writes the requested messages, reporting progress up to the total', async () => {
    const db = server.runtime.database.db;
    const [{ n }] = (await db.select({ n: count() }).from(messages).where(eq(messages.appId, tenant.appId))) as [{ n: number }];
    expect(n).toBe(12_000);
    expect(progress).toEqual([5_000, 10_000, 12_000]);
    expect(progress.length).toBeGreaterThan(1);
    expect((await db.select({ n: count() }).from(templates).where(eq(templates.appId, tenant.appId)))[0]!.n).toBe(3);
  });

  it('seeding the app again adds messages and campaigns but no second template of a name and language', async () => {
    const other = await server.tenant();
    const { db } = server.runtime.database;
    const copy = server.runtime.database.kind === 'postgres';
    const first = await seedAnalytics({ db, copy, appId: other.appId, messages: 100 });
    const second = await seedAnalytics({ db, copy, appId: other.appId, messages: 100 });
    expect([first.templates, second.templates]).toEqual([3, 0]);
    const rows = await db.select({ name: templates.name, language: templates.language }).from(templates).where(eq(templates.appId, other.appId));
    expect(rows).toHaveLength(3);
    expect((await db.select({ n: count() }).from(messages).where(eq(messages.appId, other.appId)))[0]!.n).toBe(200);
  });

  it('is internally consistent: funnel timestamps, campaign links, 90 days', async () => {
    const db = server.runtime.database.db;
    const inconsistent = await db
      .select({ n: count() })
      .from(messages)
      .where(
        and(
          eq(messages.appId, tenant.appId),
          sql`(
            (${messages.status} = 'read' and ${messages.readAt} is null)
            or (${messages.status} in ('delivered', 'read') and ${messages.deliveredAt} is null)
            or (${messages.status} = 'failed' and (${messages.failedAt} is null or ${messages.errorMessage} is null))
            or (${messages.direction} = 'inbound' and ${messages.campaignId} is not null)
            or ${messages.createdAt} < now() - interval '91 days'
          )`,
        ),
      );
    expect(inconsistent[0]!.n).toBe(0);
    const orphans = await db
      .select({ n: count() })
      .from(messages)
      .leftJoin(campaigns, and(eq(campaigns.appId, messages.appId), eq(campaigns.id, messages.campaignId)))
      .where(and(eq(messages.appId, tenant.appId), sql`${messages.campaignId} is not null`, isNull(campaigns.id)));
    expect(orphans[0]!.n).toBe(0);
  });

  it('fills the rollups through the triggers, equal to the messages', async () => {
    const db = server.runtime.database.db;
    const result = await db.execute(sql`
      select (select count(*) filter (where status in ('sent', 'delivered', 'read'))::int from messages where app_id = ${tenant.appId} and direction = 'outbound') as raw,
             (select sum(sent)::int from message_rollups where app_id = ${tenant.appId}) as buckets,
             (select sum(sent)::int from campaign_rollups where app_id = ${tenant.appId}) as by_campaign,
             (select count(*) filter (where status in ('sent', 'delivered', 'read'))::int from messages
               where app_id = ${tenant.appId} and direction = 'outbound' and campaign_id is not null) as raw_campaigns,
             (select count(distinct user_phone)::int from messages where app_id = ${tenant.appId} and direction = 'outbound') as raw_contacts,
             (select sum(contacts)::int from contact_rollups where app_id = ${tenant.appId}) as contacts`);
    const [row] = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<Record<string, number>>;
    expect(row!.raw).toBeGreaterThan(0);
    expect(row).toEqual({ raw: row!.raw, buckets: row!.raw, by_campaign: row!.raw_campaigns, raw_campaigns: row!.raw_campaigns, raw_contacts: row!.raw_contacts, contacts: row!.raw_contacts });
  });

  it('gives the analytics endpoints realistic answers', async () => {
    const summary = await request(`${server.url}/api/v1/analytics/${tenant.appId}/metrics/summary?startDate=${new Date(Date.now() - 91 * 86_400_000).toISOString()}`, {
      token: tenant.accessToken,
    });
    const s = summary.body.data;
    expect(s.sent).toBeGreaterThan(s.delivered);
    expect(s.delivered).toBeGreaterThan(s.read);
    expect(s.read).toBeGreaterThan(0);
    expect(s.failed).toBeGreaterThan(0);
    expect(s.contacts).toBeLessThan(s.sent + s.failed);
    const tags = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token: tenant.accessToken });
    expect(tags.body.data.length).toBeGreaterThan(1);
  });

  it('writes values in COPY text format: nulls, dates, and the characters COPY gives a meaning escaped', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678Z');
    expect(copyField(0.0147)).toBe('0.0147');
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField('\\N')).toBe('\\\\N');
  });

  // 100,500 rows through every index of the shared table, GIN ones included: 32 s alone on a slow
  // 2-core machine, past the suite's 30 s.
  it('writes every message with one statement, so the rollup triggers fire once and each rollup row is written once', async () => {
    const other = await server.tenant();
    const { db, kind } = server.runtime.database;
    await db.execute(sql`create table seed_statements (app_id uuid, n bigint)`);
    await db.execute(sql`
      create function seed_statements_count() returns trigger language plpgsql as $$
      begin insert into seed_statements select app_id, count(*) from new_rows group by app_id; return null; end $$`);
    await db.execute(sql`create trigger seed_statements_count after insert on messages referencing new table as new_rows for each statement execute function seed_statements_count()`);
    try {
      // More rows than one batch on PGlite, and than the 100,000 a COPY once took on PostgreSQL.
      const total = kind === 'postgres' ? 100_500 : 12_000;
      const steps: string[] = [];
      await seedAnalytics({ db, copy: kind === 'postgres', appId: other.appId, messages: total, step: (m) => steps.push(m) });
      const statements = rowsOf<{ n: number }>(await db.execute(sql`select n::int as n from seed_statements where app_id = ${other.appId}`));
      expect(statements.map((r) => r.n)).toEqual([total]);
      expect(steps).toEqual(['updating the rollups']);
    } finally {
      await db.execute(sql`drop trigger seed_statements_count on messages`);
      await db.execute(sql`drop function seed_statements_count()`);
      await db.execute(sql`drop table seed_statements`);
    }
  }, 120_000);

  it('an interrupted seed writes nothing: messages and campaigns are one transaction', async () => {
    const other = await server.tenant();
    const { db } = server.runtime.database;
    const copy = server.runtime.database.kind === 'postgres';
    await expect(
      seedAnalytics({
        db,
        copy,
        appId: other.appId,
        messages: 12_000,
        progress: (n) => {
          if (n >= 10_000) throw new Error('stop');
        },
      }),
    ).rejects.toThrow('stop');
    expect((await db.select({ n: count() }).from(messages).where(eq(messages.appId, other.appId)))[0]!.n).toBe(0);
    expect((await db.select({ n: count() }).from(campaigns).where(eq(campaigns.appId, other.appId)))[0]!.n).toBe(0);
  });
});

// COPY, and so the index rebuild, is PostgreSQL's path.
describe.runIf(process.env.DATABASE_URL)('seed with the indexes rebuilt after the load', () => {
  const indexes = async () =>
    (
      (await server.runtime.database.db.execute(
        sql`select indexname, indexdef from pg_indexes where tablename = 'messages' and schemaname = current_schema() order by indexname`,
      )) as unknown as { indexname: string; indexdef: string }[]
    ).map((r) => `${r.indexname}: ${r.indexdef}`);

  it('builds every secondary index again, as it was, and reports each build', async () => {
    const before = await indexes();
    const other = await server.tenant();
    const steps: string[] = [];
    await seedAnalytics({ db: server.runtime.database.db, copy: true, appId: other.appId, messages: 3_000, rebuildIndexes: true, step: (m) => steps.push(m) });
    expect(await indexes()).toEqual(before);
    expect(steps.length).toBeGreaterThan(5);
    expect(steps.some((m) => m.includes('messages_search_grams_idx'))).toBe(true);
    // The primary key backs a constraint: it is never dropped.
    expect(steps.some((m) => m.includes('pkey'))).toBe(false);
    const search = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=44770&limit=5`, { token: tenant.accessToken });
    expect(search.status).toBe(200);
  });

  it('a failed load leaves the indexes and the rows as they were', async () => {
    const before = await indexes();
    const other = await server.tenant();
    await expect(
      seedAnalytics({
        db: server.runtime.database.db,
        copy: true,
        appId: other.appId,
        messages: 12_000,
        rebuildIndexes: true,
        progress: (n) => {
          if (n >= 10_000) throw new Error('stop');
        },
      }),
    ).rejects.toThrow('stop');
    expect(await indexes()).toEqual(before);
    expect((await server.runtime.database.db.select({ n: count() }).from(messages).where(eq(messages.appId, other.appId)))[0]!.n).toBe(0);
  });

  it("'auto' leaves a table that has rows alone", async () => {
    const other = await server.tenant();
    const steps: string[] = [];
    await seedAnalytics({ db: server.runtime.database.db, copy: true, appId: other.appId, messages: 100, step: (m) => steps.push(m) });
    expect(steps).toEqual(['updating the rollups']);
  });
});
