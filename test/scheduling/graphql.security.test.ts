import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { api, codeOf } from './fixtures.js';

const { server } = useServer();

describe('GraphQL: agents, hours, exceptions and DND', () => {
  it('scheduling:read cannot change calendars; another app cannot read them', async () => {
    const tenant = await server.tenant();
    const reader = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:read'] })).token();
    const a = api(server, tenant);
    const res = await a.gql(`mutation($app: UUID!) { saveAgent(appId: $app, input: { name: "X", timezone: "UTC" }) { id: agentId } }`, { app: tenant.appId }, reader);
    expect(codeOf(res)).toBe('forbidden');
    const stranger = await server.tenant();
    expect(codeOf(await a.gql(`query($app: UUID!) { agents(appId: $app) { id: agentId } }`, { app: tenant.appId }, stranger.accessToken))).toBe('forbidden');
  });
});
