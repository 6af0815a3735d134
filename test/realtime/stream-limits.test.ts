import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/observability/metrics.js';
import { useServer } from '../helpers/use-server.js';
import { futureDay } from '../scheduling/fixtures.js';
import { booking, schedulingTenant } from '../webhooks/fixtures.js';
import { produceEvents, rawStream, STREAM_ALL, type RawStream } from './stream-helpers.js';

// Open streams are capped per client and per app (429 before a stream opens), and a stream whose
// reader falls behind is closed with a stream_lagging error it can resume from with `after`.
const { server } = useServer({ overrides: { STREAMS_PER_CLIENT: '2', STREAMS_PER_APP: '3', STREAM_QUEUE_EVENTS: '200', STREAM_QUEUE_BYTES: '262144' } });
const open: RawStream[] = [];
afterAll(() => {
  for (const s of open) s.socket.destroy();
});

/** A counter's value in this process's registry (the server under test runs in it). */
const metric = async (name: string) => {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
};

const until = async (what: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('stream caps (STREAMS_PER_CLIENT=2, STREAMS_PER_APP=3)', () => {
  it('a third stream of a client and a fourth of an app are 429 rate_limit_exceeded before opening; a closed one frees its slot', async () => {
    const tenant = await server.tenant();
    const variables = { appId: tenant.appId };
    const stream = async (token: string) => {
      const s = await rawStream(server, token, STREAM_ALL, variables);
      open.push(s);
      return s;
    };
    const first = await stream(tenant.accessToken);
    expect(await first.status).toBe(200);
    expect(await (await stream(tenant.accessToken)).status).toBe(200);

    const refusedBefore = await metric('switchboard_sse_streams_refused_total{cap="client"}');
    const refused = await rawStream(server, tenant.accessToken, STREAM_ALL, variables);
    expect(await refused.status).toBe(429);
    await until(() => refused.body().endsWith('}]}'));
    const body = JSON.parse(refused.body());
    refused.socket.destroy();
    expect(body.errors[0].extensions).toEqual({ code: 'rate_limit_exceeded' });
    expect(body.errors[0].message).toMatch(/per client/);
    expect(await metric('switchboard_sse_streams_refused_total{cap="client"}')).toBe(refusedBefore + 1);

    // Another client of the same app: one more fits the app's 3, then the app is full.
    const other = await server.client({ apps: [tenant.appId], scopes: ['scheduling:read'] });
    const otherToken = await other.token();
    expect(await (await stream(otherToken)).status).toBe(200);
    const appFull = await rawStream(server, otherToken, STREAM_ALL, variables);
    expect(await appFull.status).toBe(429);
    appFull.socket.destroy();

    // The first client's stream closes: its slot is free again.
    first.socket.destroy();
    await until(async () => {
      const again = await rawStream(server, tenant.accessToken, STREAM_ALL, variables);
      open.push(again);
      return (await again.status) === 200;
    });
  });
});

describe('a reader that falls behind (STREAM_QUEUE_EVENTS=200, STREAM_QUEUE_BYTES=256 KiB)', () => {
  it('is closed with stream_lagging after the events it read, and resumes with after without a gap', async () => {
    const { tenant, a } = await schedulingTenant(server);
    const callId = (await a.create(booking(futureDay(3, 10)))).body.data.call.id as string;
    const laggingBefore = await metric('switchboard_sse_streams_closed_lagging_total');
    const slow = await rawStream(server, tenant.accessToken, STREAM_ALL, { appId: tenant.appId }, { paused: true });
    open.push(slow);
    expect(await slow.status).toBe(200);
    // 1,500 events of ~4 KB (6 MB): more than the socket buffers, the paced window and the queue hold.
    const produced = await produceEvents(server, tenant.appId, callId, 1500, 4000);
    await until(async () => (await metric('switchboard_sse_streams_closed_lagging_total')) === laggingBefore + 1);

    slow.socket.resume();
    await until(() => slow.messages().some((m) => m.event === 'complete'));
    const messages = slow.messages();
    const events = messages.filter((m) => m.data?.data?.scheduledCallEvents).map((m) => m.data!.data!.scheduledCallEvents!.id);
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(produced.length);
    expect(events).toEqual(produced.slice(0, events.length));
    const last = messages.at(-2)!;
    expect(last.event).toBe('next');
    expect(last.data!.errors![0]!.extensions).toEqual({ code: 'stream_lagging' });
    expect(last.data!.errors![0]!.message).toContain(events.at(-1)!);
    expect(messages.at(-1)!.event).toBe('complete');

    const resumed = await rawStream(server, tenant.accessToken, STREAM_ALL, { appId: tenant.appId, after: events.at(-1) });
    open.push(resumed);
    const rest = produced.slice(events.length);
    await until(() => resumed.messages().filter((m) => m.data?.data).length >= rest.length);
    expect(resumed.messages().map((m) => m.data?.data?.scheduledCallEvents?.id)).toEqual(rest);
    resumed.socket.destroy();
  }, 60_000);
});
