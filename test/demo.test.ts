import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDemo, demoBanner } from '../src/demo/bootstrap.js';
import { gql } from './helpers/http.js';
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
  });

  it('the banner carries the credentials and a curl line for the token endpoint', () => {
    const banner = demoBanner({ appId: 'APP', clientId: 'CID', clientSecret: 'SECRET' }, 'http://localhost:3000');
    expect(banner).toContain('APP');
    expect(banner).toContain('"client_id":"CID","client_secret":"SECRET"');
    expect(banner).toContain('curl -s http://localhost:3000/api/v1/oauth/token');
  });
});
