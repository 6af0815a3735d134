import { request as httpRequest } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { useServer } from '../helpers/use-server.js';

const { server } = useServer();

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** A POST to /graphql read as bytes, so the response's framing (Content-Length) is visible. */
function postGraphQL(token: string, payload: unknown, accept = 'application/json'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL('/graphql', server.url);
    const req = httpRequest(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}

// yoga's responses are written by the listener's own Response class (src/http/graphql.ts,
// HostResponse): these pin what a client sees of that path.
describe('GraphQL responses on the wire', () => {
  it('carry the request id, the rate-limit headers, the media type and a Content-Length in bytes', async () => {
    const tenant = await server.tenant({ rate: { minute: 40 } });
    // A non-ASCII value echoed in the error message: characters and bytes differ.
    const res = await postGraphQL(tenant.accessToken, {
      query: 'query ($app: UUID!, $n: Int) { messages(appId: $app, first: $n) { nodes { id: messageId } } }',
      variables: { app: tenant.appId, n: 'né ✓' },
    });
    const text = res.bytes.toString('utf8');
    expect(text).toContain('né ✓');
    expect(res.headers['content-length']).toBe(String(res.bytes.length));
    expect(res.bytes.length).toBeGreaterThan(text.length);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-ratelimit-limit']).toBe('40');
    expect(res.headers['x-ratelimit-remaining']).toBe('39');
    expect(JSON.parse(text).errors[0].message).toMatch(/Int cannot represent/);
  });

  it('answer in the media type asked for, with data', async () => {
    const tenant = await server.tenant();
    const res = await postGraphQL(tenant.accessToken, { query: '{ viewer { clientId } }' }, 'application/graphql-response+json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(res.bytes.length));
    expect(JSON.parse(res.bytes.toString('utf8'))).toEqual({ data: { viewer: { clientId: tenant.clientId } }, extensions: { cost: expect.objectContaining({ requestedQueryCost: 2 }) } });
  });

  it("run in the request's own context: no per-request child logger unless something logs", async () => {
    const tenant = await server.tenant();
    const child = vi.spyOn(server.runtime.logger, 'child');
    try {
      for (let i = 0; i < 3; i++) {
        const res = await postGraphQL(tenant.accessToken, { query: '{ viewer { clientId } }' });
        expect(res.status).toBe(200);
      }
      expect(child).not.toHaveBeenCalled();
    } finally {
      child.mockRestore();
    }
  });
});

describe('GraphQL over HTTP refusals of the request itself', () => {
  it('a mutation over GET is 405 with Allow: POST (GraphQL over HTTP), and is not run', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read', 'scheduling:write'] });
    const query = encodeURIComponent(`mutation($a: UUID!) { saveAgent(appId: $a, input: { name: "Via GET", timezone: "UTC" }) { id: agentId } }`);
    const variables = encodeURIComponent(JSON.stringify({ a: tenant.appId }));
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const res = await fetch(`${server.url}/graphql?query=${query}&variables=${variables}`, { headers: { authorization: `Bearer ${tenant.accessToken}`, accept } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('method_not_allowed');
    }
    const listed = await postGraphQL(tenant.accessToken, { query: `query($a: UUID!) { agents(appId: $a) { id: agentId } }`, variables: { a: tenant.appId } });
    expect(JSON.parse(listed.bytes.toString()).data.agents).toEqual([]);
  });

  it('a subscription to /graphql accepting only JSON is 406 with a body that says where streams are', async () => {
    const tenant = await server.tenant({ scopes: ['scheduling:read'] });
    const res = await postGraphQL(tenant.accessToken, { query: `subscription($a: UUID!) { scheduledCallEvents(appId: $a) { id: eventId } }`, variables: { a: tenant.appId } });
    expect(res.status).toBe(406);
    expect(res.headers['x-request-id']).toBeTruthy();
    const body = JSON.parse(res.bytes.toString());
    expect(body.errors[0].extensions.code).toBe('invalid_request');
    expect(body.errors[0].message).toMatch(/text\/event-stream/);
  });
});

describe('GraphQL over HTTP statuses (docs/graphql.md, Status codes)', () => {
  const accepts = ['application/json', 'application/graphql-response+json'] as const;
  const answer = (res: RawResponse) => JSON.parse(res.bytes.toString('utf8')) as { data?: unknown; errors?: { extensions: { code: string } }[] };

  it('an operation that ran is 200 whatever its errors, under both media types', async () => {
    const tenant = await server.tenant();
    const reader = await server.tenant({ scopes: ['messages:read'] });
    const call = 'query($a: UUID!, $id: UUID!) { scheduledCall(appId: $a, id: $id) { id: callId } }';
    const id = '00000000-0000-4000-8000-000000000000';
    for (const accept of accepts) {
      for (const [token, app, code] of [
        [tenant.accessToken, tenant.appId, 'not_found'],
        [reader.accessToken, reader.appId, 'forbidden'],
      ] as const) {
        const res = await postGraphQL(token, { query: call, variables: { a: app, id } }, accept);
        expect(res.status, accept).toBe(200);
        expect(res.headers['content-type']).toBe(`${accept}; charset=utf-8`);
        const body = answer(res);
        expect(body).toHaveProperty('data', null);
        expect(body.errors?.[0]?.extensions.code).toBe(code);
      }
    }
  });

  it('a document refused before execution: 200 to application/json, 400 to application/graphql-response+json, no data', async () => {
    const tenant = await server.tenant();
    for (const payload of [
      { query: '{ viewer {' },
      { query: '{ noSuchField }' },
      { query: 'query A { viewer { clientId } }', operationName: 'B' },
      { query: 'query($n: Int) { messages(appId: "x", first: $n) { limit } }', variables: { n: 'x' } },
    ]) {
      for (const accept of accepts) {
        const res = await postGraphQL(tenant.accessToken, payload, accept);
        expect(res.status, `${accept} ${JSON.stringify(payload)}`).toBe(accept === 'application/json' ? 200 : 400);
        const body = answer(res);
        expect(body).not.toHaveProperty('data');
        expect(body.errors?.[0]?.extensions.code).toMatch(/^(invalid_request|validation_error)$/);
      }
    }
  });

  it('a request that is not a GraphQL request is 400 under both media types', async () => {
    const tenant = await server.tenant();
    for (const payload of [{ variables: {} }, { query: 5 }, { query: '{ viewer { clientId } }', variables: 'x' }, { query: '{ viewer { clientId } }', operationName: 5 }]) {
      for (const accept of accepts) {
        const res = await postGraphQL(tenant.accessToken, payload, accept);
        expect(res.status, `${accept} ${JSON.stringify(payload)}`).toBe(400);
        expect(answer(res).errors?.[0]?.extensions.code).toBe('invalid_request');
      }
    }
  });

  it('no valid token is 401 with WWW-Authenticate; over the rate limit is 429 with Retry-After, under both media types', async () => {
    const tenant = await server.tenant({ rate: { minute: 1 } });
    for (const accept of accepts) {
      const res = await postGraphQL('not-a-token', { query: '{ viewer { clientId } }' }, accept);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(answer(res).errors?.[0]?.extensions.code).toBe('unauthorized');
    }
    expect((await postGraphQL(tenant.accessToken, { query: '{ viewer { clientId } }' })).status).toBe(200);
    for (const accept of accepts) {
      const res = await postGraphQL(tenant.accessToken, { query: '{ viewer { clientId } }' }, accept);
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(answer(res).errors?.[0]?.extensions.code).toBe('rate_limit_exceeded');
    }
  });
});
