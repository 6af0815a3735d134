import type { GraphQLFieldResolver, GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { useServer } from '../helpers/use-server.js';
import { api } from '../scheduling/fixtures.js';
import { rawStream, type RawStream } from './stream-helpers.js';
import { booker, seedAgents, settle } from './timeline.fixtures.js';

// An event fanned out to many streams runs the subscription document once per distinct
// (document, operation, variables) on the instance, not once per subscriber; each subscriber
// still gets the result of its own selection and variables.
const { server, tenant } = useServer({ tenant: true, overrides: { STREAMS_PER_CLIENT: '100' } });
const open: RawStream[] = [];

// Counts executions: the root field's resolver runs once per execution, `payload`'s once per
// execution that selects it.
const calls = { root: 0, payload: 0 };
let restore: () => void = () => {};
/** What the wrapped `payload` resolver returns instead of the event's payload, when set. */
let payloadOverride: GraphQLFieldResolver<unknown, unknown> | undefined;
beforeAll(async () => {
  await seedAgents(server, tenant.appId);
  const root = schema.getSubscriptionType()!.getFields().scheduledCallEvents!;
  const payload = (schema.getType('ScheduledCallEvent') as GraphQLObjectType).getFields().payload!;
  const [rootResolve, payloadResolve] = [root.resolve!, payload.resolve!];
  root.resolve = ((...args: Parameters<GraphQLFieldResolver<unknown, unknown>>) => (calls.root++, rootResolve(...args))) as typeof rootResolve;
  payload.resolve = ((...args: Parameters<GraphQLFieldResolver<unknown, unknown>>) => (calls.payload++, (payloadOverride ?? payloadResolve)(...args))) as typeof payloadResolve;
  restore = () => {
    root.resolve = rootResolve;
    payload.resolve = payloadResolve;
  };
});
afterAll(() => {
  restore();
  for (const s of open) s.socket.destroy();
});

const FULL = 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId eventType payload } }';
const OTHER_SELECTION = 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { eventId callId actorType } }';
const BY_VARIABLE = 'subscription($app: UUID!, $full: Boolean!) { scheduledCallEvents(appId: $app) { id: eventId payload @include(if: $full) } }';

/** The data of each `next` frame a stream received. */
const results = (s: RawStream) => s.messages().filter((m) => m.event === 'next').map((m) => (m.data as { data: { scheduledCallEvents: Record<string, unknown> } }).data.scheduledCallEvents);

describe('one execution per event and distinct document, operation and variables', () => {
  it('30 subscribers of one document cost one execution per event; other selections and variables get their own, correct results', async () => {
    const id = await booker(server)(tenant, 5, 10);
    // The booking's own `created` is announced asynchronously: let it pass before subscribing.
    await settle();
    const before = server.runtime.timeline.size;
    const stream = async (query: string, variables: object) => {
      const s = await rawStream(server, tenant.accessToken, query, { app: tenant.appId, ...variables });
      open.push(s);
      expect(await s.status).toBe(200);
      return s;
    };
    const same = await Promise.all(Array.from({ length: 30 }, () => stream(FULL, {})));
    const other = await stream(OTHER_SELECTION, {});
    const withPayload = await stream(BY_VARIABLE, { full: true });
    const withoutPayload = await stream(BY_VARIABLE, { full: false });
    const all = [...same, other, withPayload, withoutPayload];
    await vi.waitFor(() => expect(server.runtime.timeline.size).toBe(before + all.length), { timeout: 10_000, interval: 20 });

    calls.root = calls.payload = 0;
    expect((await api(server, tenant).patch(id, { guestName: 'Shared' })).status).toBe(200);
    await vi.waitFor(() => expect(all.every((s) => results(s).length > 0)).toBe(true), { timeout: 10_000, interval: 20 });

    // Four distinct executions (FULL, OTHER_SELECTION, BY_VARIABLE twice); payload selected in two of them.
    expect(calls.root).toBe(4);
    expect(calls.payload).toBe(2);
    const [event] = results(same[0]!);
    expect(event).toEqual({ id: expect.any(String), eventType: 'updated', payload: { fields: ['guest_name'] } });
    for (const s of same) expect(results(s)).toEqual([event]);
    expect(results(other)).toEqual([{ eventId: event!.id, callId: id, actorType: 'client' }]);
    expect(results(withPayload)).toEqual([{ id: event!.id, payload: { fields: ['guest_name'] } }]);
    expect(results(withoutPayload)).toEqual([{ id: event!.id }]);
    for (const s of all) s.socket.destroy();
    await vi.waitFor(() => expect(server.runtime.timeline.size).toBe(before), { timeout: 10_000, interval: 20 });
  });

  it('a resolver that reads its subscriber\'s context: every subscriber executes its own', async () => {
    const id = await booker(server)(tenant, 6, 10);
    await settle();
    const before = server.runtime.timeline.size;
    const streams = await Promise.all(Array.from({ length: 5 }, () => rawStream(server, tenant.accessToken, FULL, { app: tenant.appId })));
    open.push(...streams);
    await vi.waitFor(() => expect(server.runtime.timeline.size).toBe(before + streams.length), { timeout: 10_000, interval: 20 });

    payloadOverride = (_event, _args, ctx) => ({ requestId: (ctx as { requestId: string }).requestId });
    try {
      calls.root = calls.payload = 0;
      expect((await api(server, tenant).patch(id, { guestName: 'Own' })).status).toBe(200);
      await vi.waitFor(() => expect(streams.every((s) => results(s).length > 0)).toBe(true), { timeout: 10_000, interval: 20 });
    } finally {
      payloadOverride = undefined;
    }
    expect(calls.root).toBe(5);
    const requestIds = streams.map((s) => (results(s)[0]!.payload as { requestId: string }).requestId);
    expect(new Set(requestIds).size).toBe(5);
  });
});
