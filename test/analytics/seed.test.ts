import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAnalytics } from '../../src/analytics/seed.js';
import { campaigns, messages, templates } from '../../src/analytics/tables.js';
import { request } from '../helpers/http.js';
import { startTestServer, type Tenant, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tenant: Tenant;
const progress: number[] = [];

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.tenant();
  await seedAnalytics({ db: server.runtime.database.db, appId: tenant.appId, messages: 12_000, progress: (n) => progress.push(n) });
});
afterAll(() => server.close());

describe('seed', () => {
  it('writes the requested messages, reporting progress up to the total', async () => {
    const db = server.runtime.database.db;
    const [{ n }] = (await db.select({ n: count() }).from(messages).where(eq(messages.appId, tenant.appId))) as [{ n: number }];
    expect(n).toBe(12_000);
    expect(progress).toEqual([5_000, 10_000, 12_000]);
    expect(progress.length).toBeGreaterThan(1);
    expect((await db.select({ n: count() }).from(templates).where(eq(templates.appId, tenant.appId)))[0]!.n).toBe(3);
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
});
