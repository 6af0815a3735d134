/**
 * The SSE fan-out client (options as JSON in argv[2]; prints a summary as JSON). Opens N
 * graphql-sse subscriptions (distinct-connections mode: one HTTP request each), waits until
 * every one is connected and has received a readiness event, then per round makes ONE PATCH
 * (a reschedule with a per-round `reason`, which every event payload carries) and measures, per
 * subscriber, the time from sending the PATCH until that round's event arrived.
 */
import http from 'node:http';

interface Options {
  url: string;
  token: string;
  subscribers: number;
  rounds: number;
  query: string;
  variables: Record<string, unknown>;
  callPath: string;
  times: [string, string];
  timeoutMs?: number;
}
const o = JSON.parse(process.argv[2] ?? '{}') as Options;
const timeoutMs = o.timeoutMs ?? 15_000;

const reasonsSeen: Map<string, number>[] = Array.from({ length: o.subscribers }, () => new Map());
let waiting: { reason: string; remaining: Set<number>; done: () => void } | undefined;
let connected = 0;
let errors = 0;
const log = (m: string) => process.stderr.write(`[sse] ${m}\n`);
let allConnected!: () => void;
const connectedAll = new Promise<void>((resolve) => (allConnected = resolve));

const fail = (i: number, message: string) => {
  errors++;
  if (errors <= 3) log(`subscriber ${i}: ${message}`);
};

/**
 * One subscription as graphql-sse's distinct-connections mode makes it: a POST to /graphql/stream
 * answered with an event stream of `next` events. Read with node:http and a minimal parser: the
 * measuring client's CPU must stay small beside the server's at 10,000 subscribers (the library's
 * own client is exercised against the server by the interop tests).
 */
function subscribe(i: number): http.ClientRequest {
  const body = JSON.stringify({ query: o.query, variables: o.variables });
  const request = http.request(`${o.url}/graphql/stream`, {
    method: 'POST',
    agent: false,
    headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) },
  });
  request.on('response', (response) => {
    if (response.statusCode !== 200) {
      fail(i, `answered ${response.statusCode}`);
      response.resume();
      return;
    }
    if (++connected === o.subscribers) allConnected();
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      const at = performance.now();
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = message.split('\n').find((line) => line.startsWith('data:'));
        if (!data || !message.includes('event: next')) continue;
        const reason = (JSON.parse(data.slice(5)) as { data?: { scheduledCallEvents?: { payload?: { reason?: string } } } }).data?.scheduledCallEvents?.payload?.reason;
        if (!reason) continue;
        reasonsSeen[i]!.set(reason, at);
        if (waiting?.reason === reason && waiting.remaining.delete(i) && waiting.remaining.size === 0) waiting.done();
      }
    });
    response.on('error', (error) => fail(i, error.message));
  });
  request.on('error', (error) => fail(i, error.message));
  request.end(body);
  return request;
}
const requests = Array.from({ length: o.subscribers }, (_, i) => subscribe(i));

let current: string | undefined;
async function reschedule(reason: string): Promise<{ sentAt: number; status: number; ms: number }> {
  if (current === undefined) {
    const res = await fetch(o.url + o.callPath, { headers: { authorization: `Bearer ${o.token}` } });
    current = ((await res.json()) as { data: { call: { scheduled_at: string } } }).data.call.scheduled_at;
  }
  const to = new Date(current).getTime() === new Date(o.times[0]).getTime() ? o.times[1] : o.times[0];
  const sentAt = performance.now();
  const res = await fetch(o.url + o.callPath, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ scheduledAtUtc: to, reason }),
  });
  await res.text();
  if (res.ok) current = to;
  return { sentAt, status: res.status, ms: performance.now() - sentAt };
}

/** PATCH with `reason` and wait until every subscriber has that event (or the timeout). */
async function round(reason: string) {
  const remaining = new Set(Array.from({ length: o.subscribers }, (_, i) => i));
  let timer: NodeJS.Timeout | undefined;
  const all = new Promise<void>((resolve) => {
    waiting = { reason, remaining, done: resolve };
    timer = setTimeout(resolve, timeoutMs);
  });
  const cpuBefore = process.cpuUsage();
  const patch = await reschedule(reason);
  if (patch.status !== 200) throw new Error(`PATCH answered ${patch.status}`);
  await all;
  clearTimeout(timer);
  waiting = undefined;
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpuMs = (cpu.user + cpu.system) / 1000;
  const latencies = reasonsSeen.map((seen) => seen.get(reason)).filter((t): t is number => t !== undefined).map((t) => t - patch.sentAt);
  return { received: latencies.length, latencies, patchMs: patch.ms, clientCpuMs };
}

const started = performance.now();
await Promise.race([connectedAll, new Promise((r) => setTimeout(r, 60_000))]);
const connectMs = performance.now() - started;
log(`${connected}/${o.subscribers} connected in ${connectMs.toFixed(0)} ms`);
// Readiness: "connected" means the response started; an event reaching everyone proves each is subscribed.
const tag = `${process.pid}-${Date.now()}`;
let ready = 0;
for (let attempt = 0; attempt < 5 && ready < o.subscribers; attempt++) {
  const r = await round(`fanout ready ${tag} ${attempt}`);
  ready = reasonsSeen.filter((seen) => seen.size > 0).length;
  log(`readiness round ${attempt}: ${r.received}/${o.subscribers} received (${ready} have had an event)`);
}
const sorted = (v: number[]) => [...v].sort((a, b) => a - b);
const pct = (v: number[], p: number) => (v.length ? sorted(v)[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)]! : NaN);
const rounds = [];
for (let r = 1; r <= o.rounds; r++) {
  const { received, latencies, patchMs, clientCpuMs } = await round(`fanout round ${tag} ${r}`);
  rounds.push({ received, p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies), patchMs, clientCpuMs });
  log(`round ${r}: ${received}/${o.subscribers} received; p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, all ${Math.max(...latencies).toFixed(1)} ms (PATCH answered in ${patchMs.toFixed(1)} ms; this client used ${clientCpuMs.toFixed(0)} ms of CPU)`);
  await new Promise((res) => setTimeout(res, 200));
}
for (const request of requests) request.destroy();
process.stdout.write(JSON.stringify({ subscribers: o.subscribers, connected, connectMs, ready, errors, rounds }));
process.exit(0);
