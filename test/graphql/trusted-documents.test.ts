import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gql as gqlAnyAccept, graphQLResponseJson, request } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { rawStream } from '../realtime/stream-helpers.js';

// Refusals before execution answer 400 to this media type (200 to application/json).
const gql = (url: string, token: string | undefined, query: string, variables?: Record<string, unknown>) => gqlAnyAccept(url, token, query, variables, graphQLResponseJson);

const VIEWER = 'query Viewer { viewer { clientId } }';
const EVENTS = 'subscription Events($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId eventType } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const dir = mkdtempSync(join(tmpdir(), 'sb-trusted-'));
const manifest = join(dir, 'persisted-documents.json');
writeFileSync(manifest, JSON.stringify({ [sha256(VIEWER)]: VIEWER, [sha256(EVENTS)]: EVENTS }));

const post = (server: TestServer, token: string, json: unknown) => request(`${server.url}/graphql`, { token, json, headers: graphQLResponseJson });

describe('trusted documents, strict', () => {
  const { server } = useServer({ overrides: { GRAPHQL_TRUSTED_DOCUMENTS: manifest } });

  it('a known document runs by documentId, by persistedQuery hash and as its exact text', async () => {
    const tenant = await server.tenant();
    const expected = { viewer: { clientId: tenant.clientId } };
    const byId = await post(server, tenant.accessToken, { documentId: sha256(VIEWER) });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual(expected);
    expect(byId.body.extensions.cost.requestedQueryCost).toBe(2);
    const prefixed = await post(server, tenant.accessToken, { documentId: `sha256:${sha256(VIEWER)}` });
    expect(prefixed.body.data).toEqual(expected);
    const apq = await post(server, tenant.accessToken, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(VIEWER) } } });
    expect(apq.body.data).toEqual(expected);
    const overGet = await request(`${server.url}/graphql?documentId=${sha256(VIEWER)}`, { token: tenant.accessToken });
    expect(overGet.body.data).toEqual(expected);
    const asText = await gql(server.url, tenant.accessToken, VIEWER);
    expect(asText.body.data).toEqual(expected);
  });

  it('a document not in the manifest is refused before it runs, with a clear error', async () => {
    const tenant = await server.tenant({ scopes: ['oauth:revoke'] });
    const victim = await tenant.token();
    const res = await gql(server.url, tenant.accessToken, 'mutation($t: String!) { revokeToken(token: $t) }', { t: victim });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
    expect(res.body.errors?.[0]?.message).toMatch(/Only trusted documents run on this server/);
    expect(res.body.errors?.[0]?.extensions?.details).toEqual([{ field: 'query', code: 'invalid_value', message: 'is not a trusted document' }]);
    expect((await gql(server.url, victim, VIEWER)).status).toBe(200);
    // To an application/json client the same refusal is a 200 with no data (GraphQL over HTTP).
    const asJson = await request(`${server.url}/graphql`, { token: tenant.accessToken, json: { query: '{ viewer { scopes } }' }, headers: { accept: 'application/json' } });
    expect(asJson.status).toBe(200);
    expect(asJson.body.data).toBeUndefined();
    expect(asJson.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
    // Reformatted, a known document is another text.
    expect((await gql(server.url, tenant.accessToken, '{ viewer { clientId } }')).status).toBe(400);
  });

  it('an unknown id, or neither id nor text, is refused naming documentId', async () => {
    const tenant = await server.tenant();
    const unknown = await post(server, tenant.accessToken, { documentId: sha256('{ viewer { scopes } }') });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe('invalid_request');
    expect(unknown.body.errors[0].message).toMatch(/No trusted document has this id/);
    expect(unknown.body.errors[0].extensions.details[0]).toMatchObject({ field: 'documentId', code: 'invalid_value' });
    const none = await post(server, tenant.accessToken, { variables: {} });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].extensions.details[0]).toMatchObject({ field: 'documentId', code: 'required' });
  });

  it('over /graphql/stream only trusted texts subscribe', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    const refused = await rawStream(server, tenant.accessToken, 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId } }', { app: tenant.appId });
    expect(await refused.status).toBe(400);
    await expect.poll(() => refused.body().endsWith('}]}')).toBe(true);
    refused.socket.destroy();
    expect(JSON.parse(refused.body()).errors[0].message).toMatch(/Only trusted documents/);
    const trusted = await rawStream(server, tenant.accessToken, EVENTS, { app: tenant.appId });
    expect(await trusted.status).toBe(200);
    trusted.socket.destroy();
  });

  it('the REST API keeps working: its documents are the service\'s own', async () => {
    const tenant = await server.tenant();
    const res = await request(`${server.url}/api/v1/video/${tenant.appId}/scheduled-calls?limit=200`, { token: tenant.accessToken });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('trusted documents, permissive', () => {
  const { server } = useServer({ overrides: { GRAPHQL_TRUSTED_DOCUMENTS: manifest, GRAPHQL_TRUSTED_DOCUMENTS_MODE: 'permissive' } });

  it('ids resolve and any text still runs', async () => {
    const tenant = await server.tenant();
    expect((await post(server, tenant.accessToken, { documentId: sha256(VIEWER) })).body.data).toEqual({ viewer: { clientId: tenant.clientId } });
    expect((await gql(server.url, tenant.accessToken, '{ viewer { scopes } }')).status).toBe(200);
    expect((await post(server, tenant.accessToken, { documentId: 'abc' })).status).toBe(400);
  });
});

describe('trusted documents manifest', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['not JSON', '{', /cannot read .* as JSON/],
    ['not an object', '["{ viewer { clientId } }"]', /must be a JSON object/],
    ['a document that does not parse', JSON.stringify({ abc: '{ viewer {' }), /the document of abc .* does not parse/],
  ])('%s stops the start', async (_name, content, message) => {
    const bad = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(bad, content);
    await expect(startTestServer({ GRAPHQL_TRUSTED_DOCUMENTS: bad })).rejects.toThrow(message);
  });
});
