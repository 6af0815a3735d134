import { describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { callIdOf, codeOf, contactcenter, t0, videoMutations } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read', 'scheduling:write'] } });


const q = (query: string, variables: Record<string, unknown> = {}, token = tenant.accessToken) => gql(server.url, token, query, variables);

describe('videoCall', () => {
  it('not_found for an unknown call; forbidden for an app outside the token or without video:read', async () => {
    const query = `query($app: UUID!, $call: UUID!) { videoCall(appId: $app, callId: $call) { callId } }`;
    expect(codeOf(await q(query, { app: tenant.appId, call: callIdOf(999) }))).toBe('not_found');
    const stranger = await server.tenant({ scopes: ['video:read'] });
    expect(codeOf(await q(query, { app: stranger.appId, call: callIdOf(1) }))).toBe('forbidden');
    // Another app's id does not find this app's call either.
    expect(codeOf(await q(query, { app: stranger.appId, call: callIdOf(1) }, stranger.accessToken))).toBe('not_found');
    const writer = await server.client({ apps: [tenant.appId], scopes: ['scheduling:write'] });
    expect(codeOf(await q(query, { app: tenant.appId, call: callIdOf(1) }, await writer.token()))).toBe('forbidden');
    expect(codeOf(await q(query, { app: tenant.appId, call: 'nope' }))).toBe('validation_error');
  });
});

describe('mutations: create and provider events', () => {
  let callId: string;
  const { create, joined } = videoMutations(server, tenant, () => callId);

  it('writes need scheduling:write and the app; events on an unknown call are not_found', async () => {
    const reader = await server.client({ apps: [tenant.appId], scopes: ['video:read'] });
    expect(codeOf(await create({ presetId: 'p', contactcenter }, await reader.token()))).toBe('forbidden');
    const other = await server.tenant({ scopes: ['scheduling:write'] });
    expect(codeOf(await create({ presetId: 'p', contactcenter }, tenant.accessToken, other.appId))).toBe('forbidden');
    callId = callIdOf(98_765);
    expect(codeOf(await joined('x', 'host', t0))).toBe('not_found');
  });
});
