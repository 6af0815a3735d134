import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { agent, api, everyDay, importRecords } from '../scheduling/fixtures.js';
import { APP_EVENTS, booker, seedAgents, settle, subscribe, TIMELINE } from './timeline.fixtures.js';

// Live timelines through a real graphql-sse client (distinct-connections mode) at /graphql/stream.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));

const book = booker(server);

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
