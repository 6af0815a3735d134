import { beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, message } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['campaigns:read'] } });

beforeAll(async () => {
  const campaigns = Array.from({ length: 60 }, (_, i) => campaign(i + 1));
  const messages = campaigns.flatMap((c, i) =>
    ['sent', 'read', 'failed'].map((status, j) => message(i * 3 + j, { campaign_id: c.id, status, direction: 'outbound', cost: 0.25 })),
  );
  await importRecords(server, tenant.appId, [...campaigns, ...messages]);
});

const page = (first: number) =>
  gql(server.url, tenant.accessToken, `query($app: UUID!, $first: Int) { campaigns(appId: $app, first: $first) { nodes { id: campaignId stats { sent delivered read failed cost } } } }`, {
    app: tenant.appId,
    first,
  });

async function statementsFor(first: number) {
  const before = server.runtime.database.queries.count;
  const res = await page(first);
  expect(res.status).toBe(200);
  return { res, statements: server.runtime.database.queries.count - before };
}

describe('campaign.stats through DataLoader', () => {
  it('a page of 50 campaigns with their stats takes a small constant number of statements', async () => {
    await statementsFor(1); // the token's first request (on PGlite its auth answer is then kept in memory)
    const small = await statementsFor(5);
    const large = await statementsFor(50);
    // Token check, the page, one grouped stats query: the same for 5 and for 50 campaigns.
    expect(large.statements).toBe(small.statements);
    expect(large.statements).toBeLessThanOrEqual(3);
    expect(large.res.body.data.campaigns.nodes).toHaveLength(50);
    expect(large.res.body.data.campaigns.nodes[0].stats).toEqual({ sent: 2, delivered: 1, read: 1, failed: 1, cost: 0.75 });
  });
});
