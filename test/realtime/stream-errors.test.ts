import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// The document's own errors on /graphql/stream answer as on /graphql to a client that accepts
// application/graphql-response+json: a 400 with JSON `{errors}` with extensions.code (and
// details), never a 500 or a message without a code.
const { server, tenant } = useServer({ tenant: true });

const stream = (body: string, token = tenant.accessToken) =>
  fetch(`${server.url}/graphql/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body,
  });
const graphql = (body: string) =>
  fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body });

const deep = (levels: number) => `{ __schema { types { ${'fields { type { '.repeat(levels)}name${' } }'.repeat(levels)} } } }`;

describe('/graphql/stream: errors of the document and the request', () => {
  it.each([
    ['over the depth limit', JSON.stringify({ query: deep(12) })],
    ['too many aliases', JSON.stringify({ query: `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: __schema { description }`).join(' ')} }` })],
    ['a syntax error', JSON.stringify({ query: 'subscription {' })],
    ['a literal that does not coerce', JSON.stringify({ query: 'subscription { scheduledCallEvents(appId: "not-a-uuid") { id: eventId } }' })],
    ['an unknown field', JSON.stringify({ query: `subscription { scheduledCallEvents(appId: "${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}") { nope } }` })],
  ])('%s: the status and error /graphql gives, with extensions.code', async (_name, body) => {
    const [viaStream, viaPost] = [await stream(body), await graphql(body)];
    expect(viaStream.status).toBe(viaPost.status);
    expect(viaStream.status).toBeGreaterThanOrEqual(400);
    expect(viaStream.status).toBeLessThan(500);
    const [a, b] = [await viaStream.json(), await viaPost.json()];
    expect(a.errors[0].extensions.code).toEqual(expect.any(String));
    expect(a.errors[0].extensions.http).toBeUndefined();
    expect(a.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual(b.errors.map((e: { extensions: unknown }) => e.extensions));
  });

  it.each([
    ['a body that is not JSON', 'not json'],
    ['no query', JSON.stringify({ variables: {} })],
  ])('%s: 400 with code invalid_request', async (_name, body) => {
    const res = await stream(body);
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json.errors[0].extensions.code).toBe('invalid_request');
  });

  it("an error event inside a stream carries the code, not yoga's status hint", async () => {
    const other = await server.tenant();
    const res = await stream(JSON.stringify({ query: `subscription { scheduledCallEvents(appId: "${other.appId}") { id: eventId } }` }));
    expect(res.status).toBe(200);
    const text = await res.text();
    const event = JSON.parse(/data: (.*)/.exec(text)![1]!);
    expect(event.errors[0].extensions).toEqual({ code: 'forbidden' });
  });

  it('an Accept that admits no event stream is 406 invalid_request; one that admits it opens the stream', async () => {
    const body = JSON.stringify({ query: `subscription { scheduledCallEvents(appId: "${tenant.appId}") { id: eventId } }` });
    // A query too: it answers as a one-event stream here, never "Stream not found".
    const query = await fetch(`${server.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    });
    expect(query.status).toBe(406);
    expect((await query.json()).errors[0].extensions.code).toBe('invalid_request');
    const post = (accept: string) =>
      fetch(`${server.url}/graphql/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json', accept },
        body,
      });
    for (const accept of ['application/json', 'text/html', 'text/event-stream;q=0, application/json', 'text/event-stream;q=0, */*', 'text/*;q=0']) {
      const res = await post(accept);
      expect(res.status, accept).toBe(406);
      expect((await res.json()).errors[0]).toMatchObject({ message: expect.stringContaining('text/event-stream'), extensions: { code: 'invalid_request' } });
    }
    for (const accept of ['text/event-stream', 'text/event-stream, application/json', 'TEXT/EVENT-STREAM;charset=utf-8', '*/*', 'text/*;q=0.5', 'application/json;q=0.9, */*;q=0.1']) {
      const res = await post(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-type'), accept).toContain('text/event-stream');
      await res.body?.cancel();
    }
  });
});
