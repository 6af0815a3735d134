/**
 * Soak (issue 11): two instances on one PostgreSQL database under a mixed workload for a
 * bounded time over loopback, then checks: zero 5xx, no lost or duplicated timeline event for
 * any SSE subscriber, instance memory and database connections flat after warm-up.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak            # 120 s
 *   SOAK_SECONDS=300 SOAK_WORKERS=12 SOAK_SUBSCRIBERS=40 DATABASE_URL=… npm run soak
 *
 * It creates a fresh database, prints a JSON report on stdout and exits 1 when a check fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createClient } from 'graphql-sse';
import postgres from 'postgres';
import { createFreshDatabase } from '../helpers/server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
const SUBSCRIBERS = Number(process.env.SOAK_SUBSCRIBERS ?? 20);
const WARMUP_SECONDS = Math.min(30, Math.floor(SECONDS / 4));
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

function startInstance(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...env, PORT: String(port), VIDEO_PORT: String(port + 1), LOG_LEVEL: 'info' } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('switchboard listening')) resolve(child);
    });
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('exit', (code) => reject(new Error(`instance on ${port} exited with ${code}`)));
  });
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

let instances: ChildProcess[] = [];
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
      { query: 'subscription($app: UUID!) { scheduledCallEvents(appId: $app) { id } }', variables: { app: appId } },
      { next: (r) => { const id = (r.data as { scheduledCallEvents?: { id: string } } | null)?.scheduledCallEvents?.id; if (id) seen.set(id, (seen.get(id) ?? 0) + 1); }, error: (e) => log(`subscriber ${i} error: ${String(e)}`), complete: () => {} },
    );
    return sse;
  });
  await new Promise((r) => setTimeout(r, 1000));

  const statuses = new Map<number, number>();
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
  const future = (minutes: number) => new Date(Date.now() + 2 * 86_400_000 + minutes * 60_000).toISOString();
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  const samples: { t: number; rss: number[]; connections: number }[] = [];
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  const sampler = setInterval(async () => {
    const [row] = await admin`select count(*)::int as n from pg_stat_activity where datname = current_database()`;
    samples.push({ t: Math.round((Date.now() - started) / 1000), rss: instances.map((c) => Math.round(rssMb(c.pid!))), connections: row!.n as number });
  }, 5000);

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
        await call(base, 'POST', `/api/v1/messaging/${appId}/messages`, {
          to: phone,
          type: 'interactive',
          interactive: { type: 'flow', body: { text: 'Pick a time' }, action: { name: 'flow', parameters: { flow_message_version: '3', flow_token: `soak-${w}-${n}`, flow_id: '1234567890', flow_cta: 'Book', flow_action: 'navigate', flow_action_payload: { screen: 'WELCOME' } } } },
        });
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  clearInterval(sampler);
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
  const requests = [...statuses.values()].reduce((a, b) => a + b, 0);
  const report = {
    seconds: SECONDS,
    workers: WORKERS,
    subscribers: SUBSCRIBERS,
    requests,
    requestsPerSecond: Math.round(requests / SECONDS),
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    fiveHundreds: fiveHundreds.length,
    timelineEvents: stored.length,
    lostPerSubscriber: { max: Math.max(...lost), total: lost.reduce((a, b) => a + b, 0) },
    duplicatedPerSubscriber: { max: Math.max(...duplicated) },
    rssMbAfterWarmup: first && last ? { first: first.rss, last: last.rss } : undefined,
    dbConnectionsAfterWarmup: first && last ? { first: first.connections, last: last.connections, max: Math.max(...afterWarmup.map((s) => s.connections)) } : undefined,
    samples,
  };
  console.log(JSON.stringify(report, null, 2));
  const failures = [
    fiveHundreds.length > 0 && `5xx answers: ${fiveHundreds.slice(0, 3).join(' | ')}`,
    report.lostPerSubscriber.max > 0 && 'a subscriber lost events',
    report.duplicatedPerSubscriber.max > 0 && 'a subscriber saw an event twice',
    first && last && last.connections > first.connections + 4 && 'database connections grew after warm-up',
    first && last && last.rss.some((r, i) => r > first.rss[i]! * 1.5 + 50) && 'instance memory grew by half after warm-up',
  ].filter(Boolean);
  if (failures.length > 0) {
    log(`FAILED: ${failures.join('; ')}`);
    exitCode = 1;
  } else log('passed');
} catch (error) {
  log(`error: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
} finally {
  for (const child of instances) {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  await new Promise((r) => setTimeout(r, 3000));
  await database.drop().catch(() => {});
}
process.exit(exitCode);
