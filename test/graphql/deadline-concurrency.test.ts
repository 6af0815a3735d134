import { graphql, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { withDeadlines } from '../../src/graphql/deadline.js';
import { rowsOf } from '../../src/db/raw.js';
import { ClientConcurrency } from '../../src/http/client-concurrency.js';
import type { RequestContext } from '../../src/runtime.js';
import { request } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer, type ServerContext } from '../helpers/use-server.js';

describe('operation deadline', () => {
  const item = new GraphQLObjectType({ name: 'Item', fields: { name: { type: GraphQLString, resolve: () => 'x' } } });
  const schema = withDeadlines(
    new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { items: { type: new GraphQLList(item), resolve: () => [{}, {}] } } }),
    }),
  );
  const ctx = (deadline: number | undefined) => ({ deadline, runtime: { config: { OPERATION_TIMEOUT_MS: 100 } } }) as unknown as RequestContext;

  it('runs before its deadline and without one', async () => {
    for (const deadline of [undefined, performance.now() + 60_000]) {
      const result = await graphql({ schema, source: '{ items { name } }', contextValue: ctx(deadline) });
      expect(result).toEqual({ data: { items: [{ name: 'x' }, { name: 'x' }] } });
    }
  });

  it('a list field past the deadline does not start: 503 service_unavailable', async () => {
    const result = await graphql({ schema, source: '{ items { name } }', contextValue: ctx(performance.now() - 1) });
    expect(result.data).toEqual({ items: null });
    expect(result.errors?.[0]?.message).toMatch(/time limit of 100 ms/);
    expect((result.errors?.[0]?.originalError as { type?: string }).type).toBe('service_unavailable');
  });
});

describe('requests in flight per client', () => {
  it('counts per client and forgets a client with nothing running', () => {
    const limit = new ClientConcurrency(2);
    expect([limit.tryAcquire('a'), limit.tryAcquire('a'), limit.tryAcquire('a'), limit.tryAcquire('b')]).toEqual([true, true, false, true]);
    limit.release('a');
    expect(limit.tryAcquire('a')).toBe(true);
    for (const id of ['a', 'a', 'b']) limit.release(id);
    expect(limit.clients).toBe(0);
  });

});

/** Locks the templates table until `release`; `holder` settles once the lock is let go. */
async function lockTemplates(server: ServerContext['server']) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = server.runtime.database.db.transaction(async (tx) => {
    await tx.execute(sql`lock table templates in access exclusive mode`);
    locked();
    await released;
  });
  await lockTaken;
  return { release, holder };
}

// Requests are held in flight by a table lock: on PostgreSQL only (embedded PGlite is one
// connection, where the held lock would stop authentication too).
describe.skipIf(!process.env.DATABASE_URL)('requests in flight per client, over HTTP', () => {
  const { server } = useServer({ overrides: { CLIENT_MAX_CONCURRENT: '2' } });
  let busy: Tenant;
  let calm: Tenant;
  beforeAll(async () => {
    [busy, calm] = [await server.tenant({ scopes: ['analytics:read'] }), await server.tenant({ scopes: ['analytics:read'] })];
  });

  const waitingOnLocks = async () => {
    const [row] = rowsOf<{ n: number }>(
      await server.runtime.database.db.execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
    );
    return row!.n;
  };

  it('over the limit: 429 rate_limit_exceeded with Retry-After, REST and GraphQL; another client is not refused', async () => {
    // Two requests of the busy client held in flight: the table they read is locked meanwhile.
    const { release, holder } = await lockTemplates(server);
    const page = () => request(`${server.url}/api/v1/analytics/${busy.appId}/templates`, { token: busy.accessToken });
    const first = page();
    const second = page();
    try {
      // Both waiting on the lock, so both hold their slots: only then is a third sent (sent
      // earlier, it could take a slot first and wait on the lock itself).
      for (let i = 0; (await waitingOnLocks()) < 2; i++) {
        if (i > 200) throw new Error('the two requests never reached the locked table');
        await new Promise((r) => setTimeout(r, 50));
      }
      const third = await page();
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(third.body.error.type).toBe('rate_limit_exceeded');
      const gql = await request(`${server.url}/graphql`, { token: busy.accessToken, json: { query: '{ viewer { clientId } }' } });
      expect(gql.status).toBe(429);
      expect(gql.body.errors[0].extensions.code).toBe('rate_limit_exceeded');
      // Listing an event stream after JSON still asks for JSON: counted like any request.
      const listed = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${busy.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ query: '{ viewer { clientId } }' }),
      });
      expect(listed.status).toBe(429);
      // A query answered as an event stream on /graphql is one request too, though the HTTP
      // layer lets it pass as it would a subscription: it takes its slot when it executes.
      const asStream = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${busy.accessToken}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: '{ viewer { clientId } }' }),
      });
      expect(asStream.headers.get('content-type')).toContain('text/event-stream');
      const streamed = await asStream.text();
      expect(streamed).toContain('rate_limit_exceeded');
      expect(streamed).not.toContain('"clientId"');
      // A query sent to the stream endpoint is one request too.
      const overStream = await fetch(`${server.url}/graphql/stream`, {
        method: 'POST',
        headers: { authorization: `Bearer ${busy.accessToken}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: '{ viewer { clientId } }' }),
      });
      expect(overStream.status).toBe(429);
      expect(overStream.headers.get('retry-after')).toBe('1');
      expect(((await overStream.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('rate_limit_exceeded');
    } finally {
      release();
      await holder;
    }
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // Once those ended, the slots are free again; another client was never counted with it.
    expect((await page()).status).toBe(200);
    expect((await request(`${server.url}/api/v1/analytics/${calm.appId}/templates`, { token: calm.accessToken })).status).toBe(200);
  });
});

// A query answered as an event stream on /graphql runs under the operation deadline as any query
// does: held on a locked table past it, its next list field is not started.
describe.skipIf(!process.env.DATABASE_URL)('the operation deadline, on a query answered as an event stream', () => {
  const { server } = useServer({ overrides: { OPERATION_TIMEOUT_MS: '300' } });
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await server.tenant({ scopes: ['analytics:read'] });
  });

  it('stops at its next list field with service_unavailable', async () => {
    const { release, holder } = await lockTemplates(server);
    const query = `{ templates(appId: "${tenant.appId}") { nodes { templateId } } }`;
    const answer = fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
    }).then((res) => res.text());
    await new Promise((r) => setTimeout(r, 800));
    release();
    await holder;
    const text = await answer;
    expect(text).toContain('service_unavailable');
    expect(text).toContain('time limit of 300 ms');
  });
});
