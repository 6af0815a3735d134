import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { regularMediaType } from '../../src/http/graphql-known.js';
import { useServer } from '../helpers/use-server.js';

const { server } = useServer();

interface Answer {
  status: number;
  /**
   * Answered without yoga's adapter: its headers are written as one plain object, names as the
   * service spells them; yoga's answer goes through a Headers object, which lower-cases them.
   */
  direct: boolean;
  headers: Record<string, string | string[] | undefined>;
  body: { data?: unknown; errors?: unknown[]; extensions?: { cost?: Record<string, unknown> } };
}

function post(token: string, payload: unknown, accept?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (accept !== undefined) headers.accept = accept;
    const req = httpRequest(new URL('/graphql', server.url), { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, direct: res.rawHeaders.includes('X-Request-Id'), headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}

/** What must not differ between the two ways: the rate-limit window moves on between them. */
function comparable(answer: Answer) {
  const { throttleStatus, ...cost } = answer.body.extensions?.cost ?? {};
  return {
    status: answer.status,
    contentType: answer.headers['content-type'],
    headerNames: Object.keys(answer.headers).sort(),
    contentLength: answer.headers['content-length'] !== undefined,
    requestId: typeof answer.headers['x-request-id'],
    rateLimit: answer.headers['x-ratelimit-limit'],
    retryAfter: answer.headers['retry-after'],
    body: { ...answer.body, extensions: answer.body.extensions && { ...answer.body.extensions, cost: { ...cost, throttleStatus: typeof throttleStatus } } },
  };
}

const ACCEPTS = [undefined, 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', '*/*'];

describe('POST /graphql of a document already parsed', () => {
  it('answers as yoga does, for data and for every kind of refusal, in every JSON media type', async () => {
    const tenant = await server.tenant({ scopes: ['messages:read', 'scheduling:read', 'scheduling:write'] });
    const other = await server.tenant();
    const narrow = await server.tenant({ scopes: ['scheduling:read'] });
    const page = 'query Page($app: UUID!, $n: Int) { messages(appId: $app, first: $n) { nodes { id: messageId } pageInfo { hasNextPage } } }';
    const cases: { name: string; token: string; query: string; variables?: Record<string, unknown>; operationName?: string }[] = [
      { name: 'data', token: tenant.accessToken, query: page, variables: { app: tenant.appId, n: 2 } },
      { name: 'variables refused', token: tenant.accessToken, query: page, variables: { app: 'not-a-uuid', n: 'two' } },
      { name: "another app's data", token: tenant.accessToken, query: page, variables: { app: other.appId, n: 2 } },
      { name: 'a scope the token lacks', token: narrow.accessToken, query: page, variables: { app: narrow.appId, n: 2 } },
      { name: 'validation', token: tenant.accessToken, query: '{ viewer { clientId notAField } }' },
      { name: 'input refused by the schema', token: tenant.accessToken, query: `mutation ($a: UUID!) { saveAgent(appId: $a, input: { name: "", timezone: "Nowhere/Zone" }) { id: agentId } }`, variables: { a: tenant.appId } },
      { name: 'operation picked by name', token: tenant.accessToken, query: `query A { viewer { clientId } } query B { viewer { scopes } }`, operationName: 'B' },
      { name: 'operation the document lacks', token: tenant.accessToken, query: `query A { viewer { clientId } }`, operationName: 'C' },
    ];
    for (const [n, accept] of ACCEPTS.entries()) {
      for (const { name, token, query, variables, operationName } of cases) {
        // A text of its own for each case and Accept: the first request of it is yoga's, the second the direct one.
        const payload = { query: `${query} # ${n} ${name}`, variables, operationName };
        const first = await post(token, payload, accept);
        const second = await post(token, payload, accept);
        expect(comparable(second), `${name}, Accept: ${accept}`).toEqual(comparable(first));
        expect(first.direct, `${name}: the first request goes yoga's whole way`).toBe(false);
        expect(second.direct, `${name}, Accept: ${accept}: the second is answered directly`).toBe(name !== 'operation the document lacks');
      }
    }
  });

  it('answers with the same data the second time, and its window moves on by one request', async () => {
    const tenant = await server.tenant({ rate: { minute: 50 } });
    const payload = { query: 'query Viewer { viewer { clientId scopes } }', operationName: 'Viewer' };
    const first = await post(tenant.accessToken, payload);
    const second = await post(tenant.accessToken, payload);
    expect([first.direct, second.direct]).toEqual([false, true]);
    expect(second.body.data).toEqual({ viewer: { clientId: tenant.clientId, scopes: expect.any(Array) } });
    expect(second.body.data).toEqual(first.body.data);
    expect(first.headers['x-ratelimit-remaining']).toBe('49');
    expect(second.headers['x-ratelimit-remaining']).toBe('48');
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it("leaves to yoga what it alone answers: another body's shape or type, an Accept of no JSON type", async () => {
    const tenant = await server.tenant();
    const query = '{ viewer { clientId } }';
    expect((await post(tenant.accessToken, { query })).direct).toBe(false);
    expect((await post(tenant.accessToken, { query })).direct).toBe(true);
    const extra = await post(tenant.accessToken, { query, bogus: 1 });
    expect(extra.status).toBe(400);
    const html = await new Promise<{ status: number; direct: boolean }>((resolve, reject) => {
      const req = httpRequest(new URL('/graphql', server.url), { method: 'POST', headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json', accept: 'text/html' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, direct: res.rawHeaders.includes('X-Request-Id') });
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query }));
    });
    expect(html).toEqual({ status: 406, direct: false });
    const batch = await post(tenant.accessToken, [{ query }]);
    expect(batch.status).toBe(400);
    expect([extra.direct, batch.direct]).toEqual([false, false]);
  });
});

describe('regularMediaType', () => {
  it.each([
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/json', 'application/json'],
    ['application/graphql-response+json', 'application/graphql-response+json'],
    ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
    ['application/json, application/graphql-response+json', 'application/json'],
    ['text/event-stream, application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['application/json; charset=latin1', undefined],
    ['text/event-stream', undefined],
    ['multipart/mixed', undefined],
    ['text/html', undefined],
  ])('Accept %s: %s', (accept, expected) => {
    expect(regularMediaType(accept)).toBe(expected);
  });
});
