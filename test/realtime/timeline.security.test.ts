import { createClient, type Client } from 'graphql-sse';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, api, everyDay, futureDay, importRecords } from '../scheduling/fixtures.js';

// Live timelines through a real graphql-sse client (distinct-connections mode) at /graphql/stream.
const { server, tenant } = useServer({ tenant: true });
beforeAll(async () => {
  await importRecords(server, tenant.appId, [agent(1, 'UTC', everyDay('00:00', '24:00')), agent(2, 'UTC', everyDay('00:00', '24:00'))]);
});

const TIMELINE = `subscription($app: UUID!, $id: UUID!, $after: UUID) {
  scheduledCallTimeline(appId: $app, callId: $id, after: $after) { id: eventId callId eventType actorType payload } }`;
const APP_EVENTS = `subscription($app: UUID!, $after: UUID) { scheduledCallEvents(appId: $app, after: $after) { id: eventId callId eventType } }`;

interface Received {
  data?: Record<string, { id: string; callId: string; eventType: string; payload?: Record<string, unknown> }>;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Subscribes and collects results; `until` resolves once `count` arrived (or rejects after 5 s). */
function subscribe(url: string, token: string | undefined, query: string, variables: Record<string, unknown>) {
  const client: Client = createClient({ url: `${url}/graphql/stream`, headers: token ? { authorization: `Bearer ${token}` } : {}, retryAttempts: 0 });
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let completed = false;
  let failure: unknown;
  const done = new Promise<void>((resolve) => {
    client.subscribe(query ? { query, variables } : { query }, {
      next: (value) => {
        received.push(value as Received);
        for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      },
      error: (error) => {
        failure = error;
        resolve();
      },
      complete: () => {
        completed = true;
        resolve();
      },
    });
  });
  return {
    received,
    done,
    get completed() {
      return completed;
    },
    get failure() {
      return failure;
    },
    until: (count: number) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out with ${received.length} of ${count}: ${JSON.stringify(received)}`)), 5000);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => client.dispose(),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 250));
const book = async (t: Tenant, day: number, hour: number) =>
  (await api(server, t).create({ scheduledAtUtc: futureDay(day, hour).toISOString(), durationMinutes: 30, guestName: 'Sub', assignedAgentId: agentIdOf(1) })).body.data.call.id as string;

describe('scheduledCallTimeline and scheduledCallEvents over graphql-sse', () => {
  it('the app-wide stream carries every call of the app and nothing of other apps', async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const mine = subscribe(server.url, tenant.accessToken, APP_EVENTS, { app: tenant.appId });
    const theirs = subscribe(server.url, other.accessToken, APP_EVENTS, { app: other.appId });
    await settle();
    const c1 = await book(tenant, 5, 9);
    const c2 = await book(tenant, 5, 13);
    await mine.until(2);
    await settle();
    expect(mine.received.map((r) => [r.data!.scheduledCallEvents!.callId, r.data!.scheduledCallEvents!.eventType])).toEqual([
      [c1, 'created'],
      [c2, 'created'],
    ]);
    expect(theirs.received).toEqual([]);
    mine.close();
    theirs.close();
  });

  it('refused at subscribe time: another app, no scheduling:read, another app\'s call, a foreign `after`; 401 without a token', async () => {
    const id = await book(tenant, 6, 10);
    const stranger = await server.tenant();
    const writer = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:write'] })).token();
    const cases: [string | undefined, Record<string, unknown>, string][] = [
      [stranger.accessToken, { app: tenant.appId, id }, 'forbidden'],
      [writer, { app: tenant.appId, id }, 'forbidden'],
      [stranger.accessToken, { app: stranger.appId, id }, 'not_found'],
      [tenant.accessToken, { app: tenant.appId, id, after: '00000000-0000-4000-8000-000000000000' }, 'invalid_request'],
      // A variable that is no UUID: scheduling's REST type, as on its other paths.
      [tenant.accessToken, { app: tenant.appId, id: 'not-a-uuid' }, 'invalid_request'],
    ];
    for (const [token, variables, code] of cases) {
      const sub = subscribe(server.url, token, TIMELINE, variables);
      await sub.until(1);
      expect(sub.received[0]!.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe(code);
      expect(sub.received[0]!.data ?? null).toBeNull();
      sub.close();
    }
    await api(server, tenant).patch(id, { guestName: 'Unseen' });
    const anonymous = await fetch(`${server.url}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: TIMELINE, variables: { app: tenant.appId, id } }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});
