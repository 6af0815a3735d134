import { beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { codeOf, contactcenter, LIST_CALLS, listedCallsTenant, t0, videoMutations } from './fixtures.js';

const { server, tenant } = useServer({ tenant: { scopes: ['video:read', 'scheduling:write'] } });


const q = (query: string, variables: Record<string, unknown> = {}, token = tenant.accessToken) => gql(server.url, token, query, variables);

describe('videoCalls', () => {
  let lister: Tenant;

  beforeAll(async () => {
    lister = await listedCallsTenant(server);
  });

  const list = (variables: Record<string, unknown>) => q(LIST_CALLS, { app: lister.appId, ...variables }, lister.accessToken);

  it.each([
    [{ first: 0 }, 'first'],
    [{ first: 201 }, 'first'],
    [{ status: 'finished' }, 'status'],
    [{ after: 'garbage' }, 'after'],
  ])('validation_error for %j', async (variables, field) => {
    const res = await list(variables);
    expect(codeOf(res)).toBe('validation_error');
    expect(res.body.errors?.[0]?.extensions?.details).toContainEqual(expect.objectContaining({ field }));
  });
});

describe('mutations: create and provider events', () => {
  let callId: string;
  const { create, joined, recording } = videoMutations(server, tenant, () => callId);

  it.each([
    [{ presetId: '', contactcenter }, 'input.presetId'],
    [{ presetId: 'p', metadata: [1, 2], contactcenter }, 'input.metadata'],
    [{ presetId: 'p', contactcenter: { ...contactcenter, ccLangTag: '' } }, 'input.contactcenter.ccLangTag'],
    [{ presetId: 'p', provider: { name: 'vonage', meetingId: '' }, contactcenter }, 'input.provider.meetingId'],
  ])('createVideoCall validation_error names the field (%#)', async (input, field) => {
    const res = await create(input);
    expect(codeOf(res)).toBe('validation_error');
    expect(res.body.errors?.[0]?.extensions?.details).toContainEqual(expect.objectContaining({ field }));
  });

  it('event arguments are validated: role, recording status and url', async () => {
    callId = (await create({ presetId: 'p', contactcenter })).body.data.createVideoCall.callId;
    expect(codeOf(await joined('x', 'moderator', t0))).toBe('validation_error');
    expect(codeOf(await recording('a', 'done', t0))).toBe('validation_error');
    expect(codeOf(await recording('a', 'available', t0, 'ftp://files.example.com/a'))).toBe('validation_error');
  });

  it('concurrent joins of one participant: exactly one wins, the others are 409', async () => {
    callId = (await create({ presetId: 'p', contactcenter })).body.data.createVideoCall.callId;
    const results = await Promise.all(Array.from({ length: 6 }, () => joined('same', 'participant', t0)));
    const codes = results.map((r) => codeOf(r) ?? 'ok').sort();
    expect(codes).toEqual(['conflict', 'conflict', 'conflict', 'conflict', 'conflict', 'ok']);
  });
});
