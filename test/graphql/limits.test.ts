import { describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ overrides: { GRAPHQL_MAX_DEPTH: '4', GRAPHQL_MAX_ALIASES: '5', GRAPHQL_MAX_COMPLEXITY: '12', GRAPHQL_MAX_TOKENS: '400' }, tenant: { scopes: ['oauth:revoke'] } });

/** Refused at validation: an error naming the limit, and no data at all (nothing executed). */
function expectRefused(res: { body: { data?: unknown; errors?: { message: string }[] } }, pattern: RegExp) {
  expect(res.body.errors?.[0]?.message).toMatch(pattern);
  expect(res.body.data ?? null).toBeNull();
}

const stillValid = async (token: string) => (await gql(server.url, token, '{ viewer { clientId } }')).status === 200;

describe('GraphQL abuse limits', () => {
  it('unauthenticated requests are 401, introspection included', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __typename }', '{ viewer { clientId } }']) {
      const res = await gql(server.url, undefined, query);
      expect(res.status).toBe(401);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('unauthorized');
    }
    const get = await request(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(get.status).toBe(401);
  });

  it('depth is counted through fragments and refused', async () => {
    const flat = await gql(server.url, tenant.accessToken, '{ __schema { queryType { fields { type { name } } } } }');
    expectRefused(flat, /depth/i);
    const viaFragments = await gql(
      server.url,
      tenant.accessToken,
      `query { __schema { ...A } }
       fragment A on __Schema { queryType { ...B } }
       fragment B on __Type { fields { ...C } }
       fragment C on __Field { type { name } }`,
    );
    expectRefused(viaFragments, /depth/i);
    const shallow = await gql(server.url, tenant.accessToken, '{ __schema { queryType { name } } }');
    expect(shallow.status).toBe(200);
  });

  it('a fragment named __schema does not bypass the depth limit', async () => {
    const res = await gql(
      server.url,
      tenant.accessToken,
      `query { __schema { ...__schema } }
       fragment __schema on __Schema { queryType { fields { type { name } } } }`,
    );
    expectRefused(res, /depth/i);
  });

  it('too many aliases are refused and the operation is never executed', async () => {
    const victim = await tenant.token();
    const fields = Array.from({ length: 6 }, (_, i) => `a${i}: revokeToken(token: $t)`).join(' ');
    const res = await gql(server.url, tenant.accessToken, `mutation($t: String!) { ${fields} }`, { t: victim });
    expectRefused(res, /alias/i);
    expect(await stillValid(victim)).toBe(true);
  });

  it('aliases hidden in fragments are counted too', async () => {
    const res = await gql(
      server.url,
      tenant.accessToken,
      `query { ...F ...G }
       fragment F on Query { a: viewer { clientId } b: viewer { clientId } c: viewer { clientId } }
       fragment G on Query { d: viewer { clientId } e: viewer { clientId } f: viewer { clientId } }`,
    );
    expectRefused(res, /alias/i);
  });

  it('over-complex queries are refused with invalid_request and no data', async () => {
    // Each viewer selection costs 1 + 3; four of them (16) exceed 12.
    const complex = await gql(
      server.url,
      tenant.accessToken,
      `query { a: viewer { clientId scopes appIds } b: viewer { clientId scopes appIds } c: viewer { clientId scopes appIds } d: viewer { clientId scopes appIds } }`,
    );
    expectRefused(complex, /complexity 16 exceeds the limit of 12/);
    expect(complex.body.errors?.[0]?.extensions?.code).toBe('invalid_request');
    const cheap = await gql(server.url, tenant.accessToken, `query { a: viewer { clientId scopes appIds } b: viewer { clientId scopes appIds } }`);
    expect(cheap.status).toBe(200);
  });

  it('an over-complex mutation does not run', async () => {
    const low = await startTestServer({ GRAPHQL_MAX_COMPLEXITY: '10', GRAPHQL_MAX_ALIASES: '50' });
    try {
      const owner = await low.tenant({ scopes: ['oauth:revoke'] });
      const victim = await owner.token();
      const fields = Array.from({ length: 11 }, (_, i) => `a${i}: revokeToken(token: $t)`).join(' ');
      const res = await gql(low.url, owner.accessToken, `mutation($t: String!) { ${fields} }`, { t: victim });
      expect(res.body.errors?.[0]?.message).toMatch(/complexity 11 exceeds the limit of 10/);
      expect((await gql(low.url, victim, '{ viewer { clientId } }')).status).toBe(200);
    } finally {
      await low.close();
    }
  });

  it('the complexity budget is for client documents: a REST route runs its own document unbudgeted', async () => {
    const reader = await server.tenant({ scopes: ['messages:read'] });
    // 200 rows weigh as 10 list items: far over this server's budget of 12 as a client's query...
    const query = `query($app: UUID!) { messages(appId: $app, first: 200) { nodes { id: messageId status } } }`;
    const viaGraphql = await gql(server.url, reader.accessToken, query, { app: reader.appId });
    expect(viaGraphql.body.errors?.[0]?.message).toMatch(/complexity \d+ exceeds the limit of 12/);
    // ...while the v1 path, whose limit is validated (at most 200), answers.
    const viaRest = await request(`${server.url}/api/v1/analytics/${reader.appId}/messages?limit=200`, { token: reader.accessToken });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.pagination.limit).toBe(200);
    const tooMany = await request(`${server.url}/api/v1/analytics/${reader.appId}/messages?limit=201`, { token: reader.accessToken });
    expect(tooMany.status).toBe(400);
  });

  it('oversized documents are refused by token count', async () => {
    const fields = Array.from({ length: 450 }, () => 'clientId').join(' ');
    const res = await gql(server.url, tenant.accessToken, `{ viewer { ${fields} } }`);
    expectRefused(res, /token/i);
  });
});

describe('a literal nested past what the parser can recurse', () => {
  // Token and size limits raised so that the parser's recursion, not the lexer, meets it first.
  const deep = useServer({ overrides: { GRAPHQL_MAX_TOKENS: '1000000', GRAPHQL_MAX_DOCUMENT_BYTES: '1048576' }, tenant: true });

  it('is a syntax error (invalid_request), not an internal error', async () => {
    for (const [open, close] of [['[', ']'], ['{a:', '}']] as const) {
      const res = await gql(deep.server.url, deep.tenant.accessToken, `{ __typename(x: ${open.repeat(50_000)}1${close.repeat(50_000)}) }`);
      expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/nests too deeply/), extensions: { code: 'invalid_request' } });
      expect(res.body.data ?? null).toBeNull();
    }
  });
});
