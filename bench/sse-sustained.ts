/**
 * The sustained-writes SSE client (options as JSON in argv[2]; prints a summary as JSON). Opens N
 * subscriptions to the app stream as a browser's EventSource does (GET /graphql/stream, the token
 * as access_token), proves each live with a readiness event, then writes events at a fixed rate
 * (one PATCH each, rescheduling a call with a per-write `reason`, which the event's payload
 * carries) for a while, and checks that every subscriber received every written event exactly
 * once and in write order. Latency of a delivery = from sending the PATCH that wrote the event
 * until that subscriber parsed it.
 */
interface Options {
  url: string;
  token: string;
  subscribers: number;
  /** Writes (events) per second, evenly spaced. */
  rate: number;
  seconds: number;
  query: string;
  variables: Record<string, unknown>;
  callPath: string;
  times: [string, string];
}
const o = JSON.parse(process.argv[2] ?? '{}') as Options;
const log = (m: string) => process.stderr.write(`[sse-sustained] ${m}\n`);

/** What a subscriber saw: per write index, when it arrived; and each event id it got, counted. */
interface Subscriber {
  arrivals: Map<number, number>;
  eventIds: Map<string, number>;
  /** Write indexes in arrival order (to check order). */
  order: number[];
  connected: boolean;
  errors: number;
}
const subscribers: Subscriber[] = Array.from({ length: o.subscribers }, () => ({ arrivals: new Map(), eventIds: new Map(), order: [], connected: false, errors: 0 }));
const tag = `${process.pid}-${Date.now()}`;
/** `reason` of write i → i; readiness writes are negative. */
const writeIndex = new Map<string, number>();
const controller = new AbortController();

const url = new URL('/graphql/stream', o.url);
url.searchParams.set('query', o.query);
url.searchParams.set('variables', JSON.stringify(o.variables));
url.searchParams.set('access_token', o.token);

async function subscribe(s: Subscriber, i: number): Promise<void> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`subscriber ${i}: status ${res.status}: ${(await res.text()).slice(0, 200)}`);
  s.connected = true;
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const at = performance.now();
    text += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!/^event: next$/m.test(frame) || !data) continue;
      const result = JSON.parse(data) as { data?: { scheduledCallEvents?: { eventId: string; payload?: { reason?: string } } }; errors?: unknown[] };
      const event = result.data?.scheduledCallEvents;
      if (!event) {
        if (s.errors++ < 1) log(`subscriber ${i}: ${data.slice(0, 200)}`);
        continue;
      }
      s.eventIds.set(event.eventId, (s.eventIds.get(event.eventId) ?? 0) + 1);
      const index = writeIndex.get(event.payload?.reason ?? '');
      if (index === undefined) continue;
      if (!s.arrivals.has(index)) s.arrivals.set(index, at);
      s.order.push(index);
    }
  }
}

let current: string | undefined;
async function write(reason: string): Promise<number> {
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
  if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
  current = to;
  return sentAt;
}

const waitFor = async (ok: () => boolean, ms: number) => {
  const deadline = performance.now() + ms;
  while (!ok() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return ok();
};

const started = performance.now();
const streams = subscribers.map((s, i) =>
  subscribe(s, i).catch((error: unknown) => {
    if (!controller.signal.aborted) {
      s.errors++;
      log(String((error as Error).message));
    }
  }),
);
await waitFor(() => subscribers.every((s) => s.connected), 60_000);
const connectMs = performance.now() - started;
log(`${subscribers.filter((s) => s.connected).length}/${o.subscribers} connected in ${connectMs.toFixed(0)} ms`);
// Readiness: a response that started is not yet a live subscription; an event reaching everyone proves it.
for (let attempt = 1; attempt <= 5; attempt++) {
  const reason = `ready ${tag} ${attempt}`;
  writeIndex.set(reason, -attempt);
  await write(reason);
  if (await waitFor(() => subscribers.every((s) => s.arrivals.has(-attempt)), 10_000)) break;
}
const ready = subscribers.filter((s) => [...s.arrivals.keys()].some((k) => k < 0)).length;
log(`${ready}/${o.subscribers} live; writing ${o.rate} events/s for ${o.seconds} s`);

// The writes: open loop, evenly spaced; one in flight at a time per call (they queue on the row
// lock anyway), so a slow write delays the next rather than piling up.
const total = Math.round(o.rate * o.seconds);
const sentAt: number[] = [];
const writeStart = performance.now();
const cpuBefore = process.cpuUsage();
let behind = 0;
for (let i = 0; i < total; i++) {
  const due = writeStart + (i * 1000) / o.rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  else if (wait < -1000 / o.rate) behind++;
  const reason = `sustained ${tag} ${i}`;
  writeIndex.set(reason, i);
  sentAt[i] = await write(reason);
}
const writeSeconds = (performance.now() - writeStart) / 1000;
await waitFor(() => subscribers.every((s) => s.arrivals.size >= total + 1 || s.errors > 0), 30_000);
const cpu = process.cpuUsage(cpuBefore);
controller.abort();
await Promise.allSettled(streams);

// Every (subscriber, write) pair: delivered once and in order, and how late.
const latencies: number[] = [];
// An event some subscriber never got has no "slowest" latency: it counts as missing instead.
const slowestPerWrite = new Array<number>(total).fill(0);
const incomplete = new Set<number>();
let missing = 0;
let duplicates = 0;
let outOfOrder = 0;
const subscriberMax: number[] = [];
for (const s of subscribers) {
  let worst = 0;
  for (let i = 0; i < total; i++) {
    const at = s.arrivals.get(i);
    if (at === undefined) {
      missing++;
      incomplete.add(i);
      continue;
    }
    const ms = at - sentAt[i]!;
    latencies.push(ms);
    worst = Math.max(worst, ms);
    slowestPerWrite[i] = Math.max(slowestPerWrite[i]!, ms);
  }
  subscriberMax.push(worst);
  for (const count of s.eventIds.values()) duplicates += count - 1;
  const written = s.order.filter((i) => i >= 0);
  for (let k = 1; k < written.length; k++) if (written[k]! <= written[k - 1]!) outOfOrder++;
}
const sorted = (v: number[]) => Float64Array.from(v).sort();
const pct = (v: Float64Array, p: number) => (v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)]! : NaN);
const all = sorted(latencies);
const slowest = sorted(slowestPerWrite.filter((_, i) => !incomplete.has(i)));
const summary = {
  subscribers: o.subscribers,
  connected: subscribers.filter((s) => s.connected).length,
  connectMs,
  ready,
  writes: total,
  writeSeconds,
  writesBehind: behind,
  deliveries: latencies.length,
  /** Events every subscriber got: the ones the slowest-subscriber figures are over. */
  completeEvents: total - incomplete.size,
  missing,
  duplicates,
  outOfOrder,
  errors: subscribers.reduce((n, s) => n + s.errors, 0),
  all: { p50: pct(all, 50), p99: pct(all, 99), max: pct(all, 100) },
  slowest: { p50: pct(slowest, 50), p99: pct(slowest, 99), max: pct(slowest, 100) },
  clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
};
log(JSON.stringify(summary));
process.stdout.write(JSON.stringify(summary));
process.exit(0);
