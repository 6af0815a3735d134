import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { api } from '../scheduling/fixtures.js';
import { openStream } from './event-stream.fixtures.js';
import { booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// GET /graphql/stream with the token as the access_token query parameter, as a browser's
// EventSource opens it; every log line the server writes meanwhile (at debug level) is kept, and
// none may hold the token.
const logged: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, callback) {
    logged.push(...String(chunk).split('\n').filter(Boolean));
    callback();
  },
});
const { server, tenant } = useServer({ tenant: true, logger: pino({ level: 'debug' }, sink), overrides: { METRICS: '1' } });
beforeAll(() => seedAgents(server, tenant.appId));

describe('the token as the access_token query parameter', () => {
  it('streams the events, resumes with Last-Event-ID, and answers with no-store and no-referrer', async () => {
    const id = await booker(server)(tenant, 3, 10);
    await settle();
    const first = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id }, { accessToken: tenant.accessToken });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toContain('text/event-stream');
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['referrer-policy']).toBe('no-referrer');
    await settle();
    const a = api(server, tenant);
    await a.patch(id, { guestName: 'One' });
    await first.until(1);
    first.close();
    await a.patch(id, { guestName: 'Two' });
    const second = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id }, { accessToken: tenant.accessToken, lastEventId: first.nexts()[0]!.id });
    await second.until(1);
    await a.patch(id, { guestName: 'Three' });
    await second.until(2);
    second.close();
    const stored = (await a.get(id)).body.data.events.map((e: { id: string }) => e.id) as string[];
    expect([...first.nexts(), ...second.nexts()].map((f) => f.id)).toEqual(stored.slice(1));
    expect(second.nexts().map((f) => f.data!.data!.scheduledCallTimeline!.id)).toEqual(stored.slice(2));
  });

  it('the token reaches no log line and no metric, whether the stream opens or is refused', async () => {
    const before = logged.length;
    // A token that is no JWT but is one in form, so it is verified (and refused) rather than read as garbage.
    const forged = `${tenant.accessToken.slice(0, -12)}forgedforged`;
    const id = await booker(server)(tenant, 4, 10);
    const open = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id }, { accessToken: tenant.accessToken });
    await settle();
    await api(server, tenant).patch(id, { guestName: 'Logged' });
    await open.until(1);
    open.close();
    // An error result (no such call), a refused token, both ways at once, and a syntax error.
    const missing = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id: '00000000-0000-4000-8000-000000000000' }, { accessToken: tenant.accessToken });
    await missing.until(1);
    expect(missing.nexts()[0]!.data!.errors?.[0]?.extensions?.code).toBe('not_found');
    const refused = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id }, { accessToken: forged });
    expect(refused.status).toBe(401);
    const both = await openStream(server, tenant.accessToken, TIMELINE, { app: tenant.appId, id }, { accessToken: tenant.accessToken });
    expect(both.status).toBe(400);
    const broken = await openStream(server, undefined, 'subscription {', {}, { accessToken: tenant.accessToken });
    expect(broken.status).toBe(400);
    await settle();

    const lines = logged.slice(before);
    const requests = lines.map((l) => JSON.parse(l) as { msg: string; path?: string; status?: number }).filter((l) => l.msg === 'request' && l.path === '/graphql/stream');
    // The request lines were written (so the check below looks at them): one per stream.
    expect(requests.map((l) => l.status).sort()).toEqual([200, 200, 400, 400, 401]);
    const signature = (token: string) => token.split('.')[2]!;
    for (const token of [tenant.accessToken, forged]) {
      expect(lines.filter((l) => l.includes(signature(token)))).toEqual([]);
    }
    expect(lines.filter((l) => l.includes('access_token'))).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('route="/graphql/stream"');
    expect(metrics).not.toContain(signature(tenant.accessToken));
    expect(metrics).not.toContain('access_token');
  });
});
