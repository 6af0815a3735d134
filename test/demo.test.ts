import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDemo, demoBanner } from '../src/demo/bootstrap.js';
import { graphiqlTabs } from '../src/http/graphiql-examples.js';
import { gql, request } from './helpers/http.js';
import { issueToken, startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('first start on empty storage (DESIGN section 1)', () => {
  it('creates a demo app and an all-scopes client once; the secret is returned only that time', async () => {
    const demo = await bootstrapDemo(server.runtime);
    expect(demo).toBeDefined();
    expect(await bootstrapDemo(server.runtime)).toBeUndefined();
    const token = await issueToken(server.url, demo!.clientId, demo!.clientSecret);
    const res = await gql(server.url, token, '{ viewer { scopes apps } }');
    expect(res.body.data.viewer.apps).toEqual([demo!.appId]);
    expect(res.body.data.viewer.scopes).toHaveLength(10);

    // GraphiQL's scheduling tab runs as it stands on the demo app: slots, then a booking.
    const tab = graphiqlTabs.find((t) => t.query.includes('mutation BookCall'))!;
    const variables = { ...JSON.parse(tab.variables), appId: demo!.appId };
    const slots = await request(`${server.url}/graphql`, { token, json: { query: tab.query, variables, operationName: 'Availability' } });
    expect(slots.body.data.availability.slots.length).toBeGreaterThan(0);
    const booked = await request(`${server.url}/graphql`, { token, json: { query: tab.query, variables, operationName: 'BookCall' } });
    expect(booked.body.errors, JSON.stringify(booked.body.errors)).toBeUndefined();
    expect(booked.body.data.createScheduledCall.status).toBe('scheduled');
  });

  it('the banner carries the credentials and a curl line for the token endpoint', () => {
    const banner = demoBanner({ appId: 'APP', clientId: 'CID', clientSecret: 'SECRET' }, 'http://localhost:3000');
    expect(banner).toContain('APP');
    expect(banner).toContain('"client_id":"CID","client_secret":"SECRET"');
    expect(banner).toContain('curl -s http://localhost:3000/api/v1/oauth/token');
  });
});
