/**
 * Soak: two instances on one PostgreSQL database under a mixed workload for a
 * bounded time over loopback, then checks: zero 5xx, no lost or duplicated timeline event for
 * any SSE subscriber, instance heap and database connections flat after warm-up.
 *
 * Each instance serves /metrics on a listener of its own (METRICS_PORT=0, the port read from its
 * start-up log line); every 5 s the soak reads the instance's memory from there and counts the
 * database's connections in pg_stat_activity (the count includes the soak's own one sampling
 * connection). Memory: V8's used heap as sampled (switchboard_nodejs_heap_size_used_bytes: it
 * swings with garbage), the used heap right after the latest
 * major GC (switchboard_nodejs_heap_used_after_major_gc_bytes: what survives), and RSS.
 *
 * The heap check judges what survives: per instance, the post-GC readings of the major GCs that
 * ran after warm-up; the lowest reading of the last third of the run must not exceed the lowest
 * of the first third by more than HEAP_TOLERANCE_MB plus HEAP_TOLERANCE_RATIO of it (the lowest,
 * because a reading taken while many requests are in flight carries their live objects). Fewer
 * than two such GCs in an instance fails the run as not judged: run it longer.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak            # 120 s
 *   SOAK_SECONDS=300 SOAK_WORKERS=12 SOAK_SUBSCRIBERS=40 DATABASE_URL=… npm run soak
 *
 * It creates a fresh database, prints a JSON report on stdout and exits 1 when a check fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { createClient } from 'graphql-sse';
import postgres from 'postgres';
import { createFreshDatabase } from '../helpers/server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
const SUBSCRIBERS = Number(process.env.SOAK_SUBSCRIBERS ?? 20);
const WARMUP_SECONDS = Math.min(30, Math.floor(SECONDS / 4));
const SAMPLE_MS = 5000;
const HEAP_TOLERANCE_MB = 8;
const HEAP_TOLERANCE_RATIO = 0.1;
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.error('soak needs DATABASE_URL (PostgreSQL): two instances share one database');
  process.exit(1);
}

const log = (msg: string) => process.stderr.write(`soak: ${msg}\n`);
const database = await createFreshDatabase(baseUrl);
const env = { ...process.env, DATABASE_URL: database.url, REDIS_URL: process.env.REDIS_URL ?? '', DEMO: '0', LOG_LEVEL: 'warn', HOST: '127.0.0.1' };

function cli(args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${err}`))));
    child.stdin.end(input ?? '');
  });
}

interface Instance {
  child: ChildProcess;
  /** The instance's own /metrics listener. */
  metricsUrl: string;
}

function startInstance(port: number): Promise<Instance> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...env, PORT: String(port), VIDEO_PORT: String(port + 1), METRICS_PORT: '0', LOG_LEVEL: 'info' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('switchboard listening') && l.trimEnd().endsWith('}'));
      if (!line) return;
      const metricsPort = (JSON.parse(line) as { metricsPort?: number }).metricsPort;
      if (!metricsPort) reject(new Error(`instance on ${port} started without a metrics listener`));
      else resolve({ child, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
    });
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('exit', (code) => reject(new Error(`instance on ${port} exited with ${code}`)));
  });
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** One instance's memory and open SSE streams, as its /metrics reports them. */
async function memoryOf(instance: Instance): Promise<{ heapUsed: number; heapAfterGc: number | null; majorGcs: number; heapTotal: number; rss: number; sse: number }> {
  const text = await (await fetch(instance.metricsUrl)).text();
  const optional = (sample: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
    return line === undefined ? undefined : Number(line.slice(sample.length + 1));
  };
  const metric = (sample: string) => {
    const value = optional(sample);
    if (value === undefined) throw new Error(`${instance.metricsUrl} has no ${sample}`);
    return value;
  };
  const afterGc = optional('switchboard_nodejs_heap_used_after_major_gc_bytes');
  return {
    heapUsed: mb(metric('switchboard_nodejs_heap_size_used_bytes')),
    heapAfterGc: afterGc === undefined ? null : mb(afterGc),
    majorGcs: optional('switchboard_nodejs_gc_duration_seconds_count{kind="major"}') ?? 0,
    heapTotal: mb(metric('switchboard_nodejs_heap_size_total_bytes')),
    rss: mb(metric('switchboard_process_resident_memory_bytes')),
    sse: metric('switchboard_sse_connections_open'),
  };
}

let instances: Instance[] = [];
let exitCode = 0;
try {
  // Tenant, client, agents working around the clock, some history.
  const appId = JSON.parse(await cli(['apps', 'create', '--name', 'Soak'])).appId as string;
  const client = JSON.parse(await cli(['clients', 'create', '--app', appId, '--scopes', 'messages:read,campaigns:read,analytics:read,scheduling:read,scheduling:write,messages:send,messages:ingest', '--rate', 'minute=1000000,hour=10000000,day=100000000'])) as { client_id: string; client_secret: string };
  const allDay = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
  const agentIds = Array.from({ length: 10 }, (_, i) => `00000000-0000-4000-8a00-${String(i + 1).padStart(12, '0')}`);
  await cli(['import', '--app', appId, '-'], agentIds.map((id, i) => JSON.stringify({ type: 'agent', id, name: `Agent ${i}`, timezone: 'UTC', working_hours: allDay })).join('\n'));
  await cli(['seed', '--app', appId, '--messages', '20000']);

  const ports = [3400 + (process.pid % 200) * 2, 3800 + (process.pid % 200) * 2];
  instances = await Promise.all(ports.map(startInstance));
  const bases = ports.map((p) => `http://127.0.0.1:${p}`);
  const tokenRes = await fetch(`${bases[0]}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
  const token = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  log(`app ${appId}, instances on ${ports.join(' and ')}, ${SECONDS} s, ${WORKERS} workers, ${SUBSCRIBERS} subscribers`);

  // Subscribers, split over the two instances, each counting what it receives.
  const received: Map<string, number>[] = [];
  const clients = Array.from({ length: SUBSCRIBERS }, (_, i) => {
    const seen = new Map<string, number>();
    received.push(seen);
    const sse = createClient({ url: `${bases[i % 2]}/graphql/stream`, headers: { authorization: `Bearer ${token}` } });
    sse.subscribe(
      { query: 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id: eventId } }', variables: { app: appId } },
      { next: (r) => { const id = (r.data as { scheduledCallEvents?: { id: string } } | null)?.scheduledCallEvents?.id; if (id) seen.set(id, (seen.get(id) ?? 0) + 1); }, error: (e) => log(`subscriber ${i} error: ${String(e)}`), complete: () => {} },
    );
    return sse;
  });
  await new Promise((r) => setTimeout(r, 1000));

  const statuses = new Map<number, number>();
  const statusUpdateFailures: string[] = [];
  let statusUpdates = 0;
  const fiveHundreds: string[] = [];
  const calls: string[] = [];
  let n = 0;
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const text = await res.text();
    if (res.status >= 500) fiveHundreds.push(`${method} ${path} ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  const seededProviderIds = (await admin`select provider_message_id from messages where app_id = ${appId} and direction = 'outbound' order by id limit 2000`).map((r) => r.provider_message_id as string);
  const future = (minutes: number) => new Date(Date.now() + 2 * 86_400_000 + minutes * 60_000).toISOString();
  const started = Date.now();
  const loadAtStart = loadavg().map((l) => Math.round(l * 10) / 10);
  const deadline = started + SECONDS * 1000;
  const samples: { t: number; heapUsed: number[]; heapAfterGc: (number | null)[]; majorGcs: number[]; heapTotal: number[]; rss: number[]; sse: number[]; connections: number }[] = [];
  const samplerErrors: string[] = [];
  const sample = async () => {
    try {
      const [memory, [row]] = await Promise.all([Promise.all(instances.map(memoryOf)), admin`select count(*)::int as n from pg_stat_activity where datname = current_database()`]);
      samples.push({
        t: Math.round((Date.now() - started) / 1000),
        heapUsed: memory.map((m) => m.heapUsed),
        heapAfterGc: memory.map((m) => m.heapAfterGc),
        majorGcs: memory.map((m) => m.majorGcs),
        heapTotal: memory.map((m) => m.heapTotal),
        rss: memory.map((m) => m.rss),
        sse: memory.map((m) => m.sse),
        connections: row!.n as number,
      });
    } catch (error) {
      samplerErrors.push(String(error));
    }
  };
  const sampler = setInterval(() => void sample(), SAMPLE_MS);

  const worker = async (w: number) => {
    while (Date.now() < deadline) {
      const base = bases[(n++) % 2]!;
      const pick = n % 10;
      if (pick < 4) {
        await call(base, 'GET', `/api/v1/analytics/${appId}/messages?limit=50${pick === 1 ? '&status=delivered' : ''}`);
      } else if (pick === 4) {
        await call(base, 'GET', `/api/v1/analytics/${appId}/metrics/summary`);
      } else if (pick === 5) {
        await call(base, 'GET', `/api/v1/video/${appId}/availability?fromUtc=${future(0)}&toUtc=${future(600)}&durationMinutes=30&stepMinutes=30`);
      } else if (pick === 6 || calls.length < 5) {
        const res = await call(base, 'POST', `/api/v1/video/${appId}/scheduled-calls`, { scheduledAtUtc: future(30 * ((w * 997 + n) % 2000)), durationMinutes: 30, guestName: `Soak ${n}` });
        if (res.status === 201) calls.push(res.body.data.call.id);
      } else if (pick === 7) {
        const id = calls[n % calls.length]!;
        await call(base, 'PATCH', `/api/v1/video/${appId}/scheduled-calls/${id}`, n % 3 === 0 ? { scheduledAtUtc: future(30 * ((w * 31 + n) % 4000)), reason: 'soak' } : { guestName: `Renamed ${n}` });
      } else {
        const phone = `4477009${String(n % 100000).padStart(5, '0')}`;
        await call(base, 'POST', `/api/v1/messaging/${appId}/inbound`, { type: 'message', id: `wamid.soak.${w}.${n}`, from: phone, to: '447700900000', timestamp: new Date().toISOString(), text: 'hi' });
        const sent = await call(base, 'POST', `/api/v1/messaging/${appId}/messages`, {
          to: phone,
          type: 'interactive',
          interactive: { type: 'flow', body: { text: 'Pick a time' }, action: { name: 'flow', parameters: { flow_message_version: '3', flow_token: `soak-${w}-${n}`, flow_id: '1234567890', flow_cta: 'Book', flow_action: 'navigate', flow_action_payload: { screen: 'WELCOME' } } } },
        });
        // The provider's receipts, on the other instance: for this send (pick 8), or for a seeded
        // outbound message (pick 9, history imported with its provider_message_id).
        const other = bases[(bases.indexOf(base) + 1) % 2]!;
        const providerMessageId = pick === 8 ? (sent.body?.data?.message?.provider_message_id as string | undefined) : seededProviderIds[n % seededProviderIds.length];
        if (providerMessageId) {
          const receipt = await call(other, 'POST', `/api/v1/messaging/${appId}/inbound`, { type: 'status', provider_message_id: providerMessageId, status: pick === 8 ? 'delivered' : 'read' });
          if (receipt.status !== 200) statusUpdateFailures.push(`${providerMessageId}: ${receipt.status}`);
          else statusUpdates++;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  clearInterval(sampler);
  await sample(); // the end of the load
  await new Promise((r) => setTimeout(r, 2000)); // let the last notifications arrive

  // Every committed event of the app reached every subscriber exactly once.
  const stored = (await admin`select id from scheduled_call_events where app_id = ${appId}`).map((r) => r.id as string);
  const lost = received.map((seen) => stored.filter((id) => !seen.has(id)).length);
  const duplicated = received.map((seen) => [...seen.values()].filter((c) => c > 1).length);
  await admin.end();
  clients.forEach((c) => c.dispose());

  const afterWarmup = samples.filter((s) => s.t >= WARMUP_SECONDS);
  const first = afterWarmup[0];
  const last = afterWarmup.at(-1);
  // Post-GC readings per instance (see the top of the file): a sample whose major GC count moved
  // since the previous sample reads the heap that survived a GC of that interval.
  const gcReadings = instances.map((_, i) =>
    afterWarmup.flatMap((s) => {
      const previous = samples[samples.indexOf(s) - 1];
      const value = s.heapAfterGc[i];
      return previous && s.majorGcs[i]! > previous.majorGcs[i]! && value !== null && value !== undefined ? [{ t: s.t, mb: value }] : [];
    }),
  );
  const heapLimit = (firstFloor: number) => Math.round((firstFloor * (1 + HEAP_TOLERANCE_RATIO) + HEAP_TOLERANCE_MB) * 10) / 10;
  const survivors = gcReadings.map((readings) => {
    if (readings.length < 2) return undefined;
    const inFirst = readings.filter((r) => r.t < first!.t + (last!.t - first!.t) / 3);
    const inLast = readings.filter((r) => r.t >= last!.t - (last!.t - first!.t) / 3);
    const firstFloor = Math.min(...(inFirst.length ? inFirst : readings.slice(0, 1)).map((r) => r.mb));
    const lastFloor = Math.min(...(inLast.length ? inLast : readings.slice(-1)).map((r) => r.mb));
    return { majorGcs: readings.length, firstThird: firstFloor, lastThird: lastFloor, limit: heapLimit(firstFloor), readings: readings.map((r) => r.mb) };
  });
  const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
  const report = {
    seconds: SECONDS,
    workers: WORKERS,
    subscribers: SUBSCRIBERS,
    requests,
    requestsPerSecond: Math.round(requests / SECONDS),
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    fiveHundreds: fiveHundreds.length,
    statusUpdates: { answered200: statusUpdates, refused: statusUpdateFailures.length },
    timelineEvents: stored.length,
    lostPerSubscriber: { max: Math.max(...lost), total: lost.reduce((a, b) => a + b, 0) },
    duplicatedPerSubscriber: { max: Math.max(...duplicated) },
    warmupSeconds: WARMUP_SECONDS,
    // The machine's 1/5/15-minute load averages (2 cores, shared with other work) at start and end.
    loadAverage: { start: loadAtStart, end: loadavg().map((l) => Math.round(l * 10) / 10) },
    // Per instance, MB: the first sample after warm-up and the last one (taken when the load ended).
    heapUsedMb: first && last ? { afterWarmup: first.heapUsed, end: last.heapUsed, max: instances.map((_, i) => Math.max(...afterWarmup.map((s) => s.heapUsed[i]!))) } : undefined,
    // Per instance: post-GC floors in the first and last third after warm-up, the limit, every reading.
    heapAfterMajorGcMb: survivors,
    heapTotalMb: first && last ? { afterWarmup: first.heapTotal, end: last.heapTotal } : undefined,
    rssMb: first && last ? { afterWarmup: first.rss, end: last.rss, max: instances.map((_, i) => Math.max(...afterWarmup.map((s) => s.rss[i]!))) } : undefined,
    sseStreamsOpen: first && last ? { afterWarmup: first.sse, end: last.sse } : undefined,
    dbConnectionsAfterWarmup: first && last ? { first: first.connections, last: last.connections, max: Math.max(...afterWarmup.map((s) => s.connections)) } : undefined,
    samplerErrors,
    samples,
  };
  console.log(JSON.stringify(report, null, 2));
  const failures = [
    fiveHundreds.length > 0 && `5xx answers: ${fiveHundreds.slice(0, 3).join(' | ')}`,
    statusUpdateFailures.length > 0 && `status updates refused: ${statusUpdateFailures.slice(0, 3).join(' | ')}`,
    report.lostPerSubscriber.max > 0 && 'a subscriber lost events',
    report.duplicatedPerSubscriber.max > 0 && 'a subscriber saw an event twice',
    (!first || !last) && `too few samples after the ${WARMUP_SECONDS} s warm-up to judge heap and connections`,
    survivors.some((v) => v === undefined) && 'fewer than two major GCs after warm-up in an instance: heap growth not judged (run longer)',
    samplerErrors.length > 0 && `sampling failed: ${samplerErrors[0]}`,
    first && last && last.connections > first.connections + 4 && 'database connections grew after warm-up',
    survivors.some((v) => v !== undefined && v.lastThird > v.limit) && 'the heap surviving major GCs grew after warm-up',
    first && last && last.rss.some((r, i) => r > first.rss[i]! * 1.5 + 50) && 'instance RSS grew by half after warm-up',
    first && last && [first.sse, last.sse].some((open) => open.reduce((a, b) => a + b, 0) !== SUBSCRIBERS) && 'not every subscriber held its stream open',
  ].filter(Boolean);
  if (failures.length > 0) {
    log(`FAILED: ${failures.join('; ')}`);
    exitCode = 1;
  } else log('passed');
} catch (error) {
  log(`error: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
} finally {
  for (const { child } of instances) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  await new Promise((r) => setTimeout(r, 3000));
  await database.drop().catch(() => {});
}
process.exit(exitCode);
