/**
 * npm run bench [-- scenario ...]
 *
 * Seeds (once, cached) a dataset per storage, builds and starts the real service and the floor,
 * drives both with autocannon over loopback (warm-up, then rounds alternating service and
 * floor, medians), prints a Markdown table and writes it to docs/BENCHMARKS.md.
 *
 * Environment: BENCH_DB (postgres,pglite), BENCH_MESSAGES (1000000), BENCH_PGLITE_MESSAGES (PGlite's own count), BENCH_DURATION (seconds a
 * round, 5), BENCH_ROUNDS (4), BENCH_WARMUP (seconds, 2), BENCH_CONNECTIONS (32), BENCH_PACED_RATE
 * (req/s offered in messages_page_paced: 500 on PostgreSQL, 150 on PGlite), BENCH_PG_URL
 * (postgres://postgres@127.0.0.1:5432/postgres), BENCH_OUT (docs/BENCHMARKS.md), BENCH_PIN (0
 * turns taskset off), BENCH_LOG_LEVEL (service log level, warn), BENCH_NODE (the node binary the
 * service and the floor run under, e.g. "$(scripts/node-lts.sh 24)/node"; the harness's own by
 * default), BENCH_NODE_ARGS (extra node flags for the service, e.g. --cpu-prof), BENCH_PEERS (0 leaves
 * graphql_peers, the peer GraphQL servers of bench/peers/, out of a full run), BENCH_SCALE (a larger
 * PostgreSQL dataset for the scale curve, e.g. 10000000: bench/scale.ts), BENCH_PG_CPU (moves the
 * local PostgreSQL onto that CPU for the run, for profiling: bench/procs.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { DATA, ensureDataset, ROOT } from './dataset.js';
import { issueToken, median, send } from './service-client.js';
import { machine, packageVersion } from './machine.js';
import { cpuSecondsBetween, postgresCpu } from './proc-cpu.js';
import {
  ensurePeersInstalled,
  fanout,
  load,
  PEERS_DIR,
  peerNode,
  pinning,
  pinPostgres,
  serverNode,
  startFloor,
  startPeer,
  startService,
  sustained,
  type FanoutResult,
  type LoadResult,
  type Running,
  type SustainedResult,
} from './procs.js';
import { okRps, PEERS_HEADING, PEERS_METHOD, peersTable, peersTargets, skippedPeers, type PeerRow } from './peers-report.js';
import { dropSupersededRunLines } from './run-lines.js';
import { SCALE_HEADING_START, SCALE_SCENARIOS, scaleHeading, scaleMethod, scaleTable, scaleTargets } from './scale.js';
import { fanoutScenarios, peersScenarios, pendingScenarios, scenarios, sustainedScenarios } from './scenarios/index.js';
import type { ComputeResult, Dataset, FanoutScenario, HttpRequest, PeersScenario, Scenario, ScenarioContext, StorageKind, SustainedScenario } from './types.js';

const env = process.env;
const settings = {
  messages: Number(env.BENCH_MESSAGES ?? 1_000_000),
  duration: Number(env.BENCH_DURATION ?? 5),
  rounds: Number(env.BENCH_ROUNDS ?? 4),
  warmup: Number(env.BENCH_WARMUP ?? 2),
  connections: Number(env.BENCH_CONNECTIONS ?? 32),
  pgUrl: env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  out: path.resolve(ROOT, env.BENCH_OUT ?? 'docs/BENCHMARKS.md'),
};
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

interface Row {
  scenario: string;
  title: string;
  db: StorageKind;
  messages: number;
  connections: number;
  /** The offered req/s of a paced scenario (Scenario.rate). */
  rate?: number;
  service?: LoadResult;
  floor?: LoadResult;
  /** Median over the rounds of service req/s ÷ floor req/s, each round's pair run back to back. */
  ratio?: number;
  compute?: ComputeResult;
  notes: string[];
}

interface FanoutRow {
  scenario: string;
  title: string;
  db: StorageKind;
  targetMs: number;
  result?: FanoutResult;
  error?: string;
}

interface SustainedRow {
  scenario: string;
  db: StorageKind;
  rate: number;
  result?: SustainedResult;
  error?: string;
}

function medianOf(results: LoadResult[]): LoadResult {
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    cpuUs: results.every((r) => r.cpuUs !== undefined) ? median(results.map((r) => r.cpuUs!)) : undefined,
    dbCpuUs: results.every((r) => r.dbCpuUs !== undefined) ? median(results.map((r) => r.dbCpuUs!)) : undefined,
  };
}

async function runScenario(
  scenario: Scenario,
  ctx: ScenarioContext,
  service: Running,
  floor: Running,
  pin: ReturnType<typeof pinning>,
  compute?: ComputeResult,
): Promise<Row> {
  const connections = scenario.connections ?? settings.connections;
  const row: Row = { scenario: scenario.name, title: scenario.title, db: ctx.dataset.kind, messages: ctx.dataset.messages, connections, rate: scenario.rate?.[ctx.dataset.kind], compute, notes: [] };
  if (compute) {
    row.notes.push(
      `${compute.label}: median ${compute.medianMs.toFixed(3)} ms, p99 ${compute.p99Ms.toFixed(3)} ms over ${compute.runs} runs` +
        `${compute.targetMs !== undefined ? ` (target < ${compute.targetMs} ms)` : ''}; ${compute.detail ?? ''}`,
    );
  }
  const rotate = scenario.rotate?.(ctx);
  const request = scenario.request(ctx);
  const floorRequest = scenario.floor && scenario.floorRequest ? scenario.floorRequest(ctx) : undefined;

  const first = await send(service.url, request);
  if (first.status !== 200) {
    row.notes.push(`service answered ${first.status}, not measured`);
    log(`${scenario.name}: service answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
    return row;
  }
  if (floorRequest) {
    const floorFirst = await send(floor.url, floorRequest);
    if (floorFirst.status !== 200) throw new Error(`floor ${scenario.name} answered ${floorFirst.status}`);
    if (scenario.compare) {
      const a = JSON.stringify(scenario.compare.service(first.body));
      const b = JSON.stringify(scenario.compare.floor(floorFirst.body));
      if (a !== b) {
        row.notes.push('floor result differs from the service!');
        log(`${scenario.name}: floor and service disagree\n  service: ${a.slice(0, 300)}\n  floor:   ${b.slice(0, 300)}`);
      }
    }
  }

  // Rotation applies to the service only (no scenario with a floor rotates).
  const options = (base: string, req: HttpRequest, duration: number) =>
    loadOptions(base, req, duration, connections, base === service.url ? rotate : undefined, row.rate);
  log(`${ctx.dataset.kind} ${scenario.name}: warm-up ${settings.warmup} s, ${settings.rounds} rounds of ${settings.duration} s`);
  if (settings.warmup > 0) {
    await settle(pin, options(service.url, request, settings.warmup));
    if (floorRequest) await settle(pin, options(floor.url, floorRequest, settings.warmup));
  }
  const measured = (server: Running, req: HttpRequest) => measure(pin, server, options(server.url, req, settings.duration), ctx.dataset.kind);
  const serviceRounds: LoadResult[] = [];
  const floorRounds: LoadResult[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    // Alternate which side goes first, so drift on a shared machine hits both alike.
    const order = round % 2 === 0 ? ['service', 'floor'] : ['floor', 'service'];
    for (const side of order) {
      if (side === 'service') serviceRounds.push(await measured(service, request));
      else if (floorRequest) floorRounds.push(await measured(floor, floorRequest));
    }
  }
  row.service = medianOf(serviceRounds);
  if (row.service.requests === 0) row.notes.push(`no request completed within a ${settings.duration} s round`);
  else if (row.service.errors > 0) row.notes.push('errors include timeouts (10 s) and non-2xx answers');
  if (floorRounds.length > 0) {
    row.floor = medianOf(floorRounds);
    // Paired: the machine's speed drifts over minutes, so each round's two runs, seconds apart,
    // are compared with each other.
    row.ratio = median(serviceRounds.map((s, i) => (floorRounds[i]!.rps > 0 ? s.rps / floorRounds[i]!.rps : 0)));
  }
  if (row.rate !== undefined) {
    // Both sides are held to the same offered rate: req/s says only whether each kept up.
    row.ratio = undefined;
    const behind = [['service', row.service], ['floor', row.floor]].filter(([, r]) => r && (r as LoadResult).rps < 0.95 * row.rate!).map(([side]) => side);
    row.notes.push(
      `offered ${row.rate} req/s, evenly spaced, over at most ${connections} connections (bench/paced.ts, latency from each request's scheduled start); ` +
        (behind.length === 0 ? 'both kept up, so no ratio of req/s' : `${behind.join(' and ')} fell behind (under 95% of the offered rate)`),
    );
  }
  if (!scenario.floor && scenario.noFloor) row.notes.push(`no floor: ${scenario.noFloor}`);
  if (row.service.dbCpuUs !== undefined) {
    row.notes.push(`PostgreSQL CPU µs/req: ${fmt(row.service.dbCpuUs)}${row.floor?.dbCpuUs !== undefined ? ` (floor ${fmt(row.floor.dbCpuUs)})` : ''}`);
  }
  const ratio = row.floor ? (row.ratio !== undefined ? ` (${row.ratio.toFixed(2)} of floor ${row.floor.rps.toFixed(0)})` : ` (floor p99 ${row.floor.p99.toFixed(1)} ms)`) : '';
  const cpu =
    (row.service.cpuUs !== undefined ? `, ${row.service.cpuUs.toFixed(0)} µs CPU/req${row.floor?.cpuUs !== undefined ? ` (floor ${row.floor.cpuUs.toFixed(0)})` : ''}` : '') +
    (row.service.dbCpuUs !== undefined ? `, PostgreSQL ${row.service.dbCpuUs.toFixed(0)} µs/req${row.floor?.dbCpuUs !== undefined ? ` (floor ${row.floor.dbCpuUs.toFixed(0)})` : ''}` : '');
  log(`${ctx.dataset.kind} ${scenario.name}: ${row.service.rps.toFixed(0)} req/s, p50 ${fmt(row.service.p50, 1)} ms, p99 ${fmt(row.service.p99, 1)} ms${ratio}${cpu}`);
  return row;
}

/**
 * One measured round; the server's CPU time over it, divided by the requests, is the cost a
 * request, and on PostgreSQL the database's too (its processes are not the server's).
 */
async function measure(pin: ReturnType<typeof pinning>, server: Running, options: LoadOptions, kind: StorageKind): Promise<LoadResult> {
  const dbBefore = kind === 'postgres' ? postgresCpu() : undefined;
  const serverBefore = server.cpuSeconds();
  const result = await load(pin, options);
  const serverAfter = server.cpuSeconds();
  const dbAfter = dbBefore && postgresCpu();
  const perRequest = (seconds: number | undefined) => (seconds !== undefined && result.requests > 0 ? (seconds * 1e6) / result.requests : undefined);
  return {
    ...result,
    cpuUs: perRequest(serverBefore !== undefined && serverAfter !== undefined ? serverAfter - serverBefore : undefined),
    dbCpuUs: perRequest(dbBefore && dbAfter ? cpuSecondsBetween(dbBefore, dbAfter) : undefined),
  };
}

/**
 * One warm-up slice of every selected scenario on the service and on the floor before any is
 * measured. V8 decides late which allocation sites to pretenure: until a process has served a
 * second query shape it spends far more time in scavenges, so the first scenario of a run would
 * measure slower than later ones. After the tour every scenario meets processes past that switch.
 */
async function tour(selected: Scenario[], ctx: ScenarioContext, service: Running, floor: Running, pin: ReturnType<typeof pinning>): Promise<void> {
  log(`${ctx.dataset.kind}: warm-up tour, one ${settings.warmup} s slice of each scenario on the service and the floor`);
  for (const scenario of selected) {
    const connections = scenario.connections ?? settings.connections;
    const rate = scenario.rate?.[ctx.dataset.kind];
    await load(pin, loadOptions(service.url, scenario.request(ctx), settings.warmup, connections, scenario.rotate?.(ctx), rate));
    const floorRequest = scenario.floor && scenario.floorRequest ? scenario.floorRequest(ctx) : undefined;
    if (floorRequest) await load(pin, loadOptions(floor.url, floorRequest, settings.warmup, connections, undefined, rate));
  }
}

type LoadOptions = Parameters<typeof load>[1];

/** Load options for one request of a scenario against one server: autocannon's, or with `rate` bench/paced.ts's. */
function loadOptions(base: string, req: HttpRequest, duration: number, connections: number, rotate?: LoadOptions['rotate'], rate?: number): LoadOptions {
  return {
    url: base + req.path,
    method: req.method,
    headers: req.headers,
    body: req.body,
    connections,
    duration,
    ...(rotate ? { rotate } : {}),
    ...(rate !== undefined ? { rate } : {}),
  };
}

/**
 * Warm-up until throughput settles: slices of BENCH_WARMUP seconds until one is within 5% of the
 * one before (at most 8). A freshly started process (the first scenario of a storage, service and
 * floor alike) is still compiling its hot paths and filling its connection pool after one slice;
 * measured then, the floor's first scenario would look slow and flatter the service's ratio.
 */
async function settle(pin: ReturnType<typeof pinning>, options: Parameters<typeof load>[1]): Promise<void> {
  const slices = [(await load(pin, options)).rps];
  for (let slice = 1; slice < 8; slice++) {
    const [previous, current] = [slices.at(-1)!, (await load(pin, options)).rps];
    slices.push(current);
    if (previous > 0 && Math.abs(current - previous) / previous <= 0.05) break;
  }
  log(`  warm-up ${new URL(String(options.url)).port}: ${slices.map((r) => r.toFixed(0)).join(', ')} req/s`);
}

const peerVersion = (name: string) => {
  try {
    return (JSON.parse(readFileSync(path.join(PEERS_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
};
const nodeVersion = (node: string) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/**
 * The service's GraphQL page and each peer (bench/peers/, started here, pinned like the service)
 * on the same PostgreSQL data: each peer's answer is checked against the service's ids, then all
 * are warmed up and measured in rounds, the order rotating each round so drift hits all alike.
 */
async function runPeers(scenario: PeersScenario, ctx: ScenarioContext, service: Running, pin: ReturnType<typeof pinning>): Promise<PeerRow[]> {
  const connections = settings.connections;
  const base = { scenario: scenario.name, db: ctx.dataset.kind, messages: ctx.dataset.messages, connections };
  const serviceStack = `${scenario.versus.name}: graphql-yoga ${packageVersion('graphql-yoga')}, graphql-jit ${packageVersion('graphql-jit')}; ${nodeVersion(serverNode())}`;
  const serviceRow: PeerRow = { ...base, server: 'service', stack: serviceStack, notes: ['token verification, revocation/quota query, rate limit, scope checks'] };
  if (ctx.dataset.kind !== 'postgres') {
    return [skippedPeers(scenario.name, ctx.dataset.kind, ctx.dataset.messages, connections)];
  }
  const request = scenario.versus.request(ctx);
  const first = await send(service.url, request);
  if (first.status !== 200 || !scenario.versus.compare) {
    serviceRow.notes.push(`service answered ${first.status}, not measured`);
    return [serviceRow];
  }
  const serviceIds = JSON.stringify(scenario.versus.compare.service(first.body));
  const rows: PeerRow[] = [serviceRow];
  const sides: { row: PeerRow; server: Running; request: HttpRequest }[] = [{ row: serviceRow, server: service, request }];
  const started: Running[] = [];
  let installError: string | undefined;
  try {
    // Under the newest node the peers need, so npm's engine checks pass.
    ensurePeersInstalled(peerNode(Math.max(...scenario.peers.map((p) => p.minNode))));
  } catch (error) {
    installError = (error as Error).message;
    log(`${scenario.name}: peers not installed: ${installError}`);
  }
  try {
    for (const peer of scenario.peers) {
      const row: PeerRow = { ...base, server: peer.name, stack: '—', notes: [peer.describe] };
      rows.push(row);
      try {
        if (installError) throw new Error(installError);
        const node = peerNode(peer.minNode);
        row.stack = `${peer.packages.map((p) => `${p} ${peerVersion(p)}`).join(', ')}; ${nodeVersion(node)}`;
        log(`${ctx.dataset.kind} ${scenario.name}: starting ${peer.name} (${row.stack})`);
        const server = await startPeer(peer.script, node, ctx.dataset.databaseUrl!, pin);
        started.push(server);
        const peerRequest = peer.request(ctx);
        const answer = await send(server.url, peerRequest);
        const errors = (answer.body as { errors?: unknown } | undefined)?.errors;
        if (answer.status !== 200 || errors) {
          row.notes.push(`answered ${answer.status}${errors ? ' with GraphQL errors' : ''}, not measured`);
          log(`${scenario.name}: ${peer.name} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
          continue;
        }
        let ids: string;
        try {
          ids = JSON.stringify(peer.ids(answer.body));
        } catch {
          ids = 'unreadable';
        }
        if (ids !== serviceIds) {
          row.notes.push('result differs from the service!');
          log(`${scenario.name}: ${peer.name} and service disagree\n  service: ${serviceIds.slice(0, 300)}\n  ${peer.name}: ${ids.slice(0, 300)}`);
        }
        sides.push({ row, server, request: peerRequest });
      } catch (error) {
        row.notes.push(`not run: ${(error as Error).message}`);
        log(`${scenario.name}: ${peer.name} not run: ${(error as Error).message}`);
      }
    }
    const options = (side: (typeof sides)[number], duration: number) => loadOptions(side.server.url, side.request, duration, connections);
    log(`${ctx.dataset.kind} ${scenario.name}: ${sides.map((x) => x.row.server).join(', ')}: warm-up ${settings.warmup} s, ${settings.rounds} rounds of ${settings.duration} s`);
    if (settings.warmup > 0) for (const side of sides) await settle(pin, options(side, settings.warmup));
    const rounds = sides.map(() => [] as LoadResult[]);
    for (let round = 0; round < settings.rounds; round++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + round) % sides.length;
        rounds[i]!.push(await measure(pin, sides[i]!.server, options(sides[i]!, settings.duration), ctx.dataset.kind));
      }
    }
    sides.forEach((side, i) => {
      side.row.result = medianOf(rounds[i]!);
      if (side.row.result.errors > 0) side.row.notes.push('errors include timeouts (10 s) and non-2xx answers');
      if (i > 0) side.row.ratio = median(rounds[i]!.map((r, j) => (okRps(rounds[0]![j]!) > 0 ? okRps(r) / okRps(rounds[0]![j]!) : 0)));
      const r = side.row.result;
      log(
        `${ctx.dataset.kind} ${scenario.name} ${side.row.server}: ${r.rps.toFixed(0)} req/s, p99 ${fmt(r.p99, 1)} ms` +
          `${r.cpuUs !== undefined ? `, ${r.cpuUs.toFixed(0)} µs CPU/req` : ''}${side.row.ratio !== undefined ? ` (${side.row.ratio.toFixed(2)} of the service)` : ''}`,
      );
    });
  } finally {
    for (const server of started) await server.stop();
  }
  return rows;
}

async function runFanout(scenario: FanoutScenario, ctx: ScenarioContext, service: Running, pin: ReturnType<typeof pinning>): Promise<FanoutRow> {
  const row: FanoutRow = { scenario: scenario.name, title: scenario.title, db: ctx.dataset.kind, targetMs: scenario.targetMs };
  const { query, variables } = scenario.subscription(ctx);
  const call = scenario.call(ctx);
  log(`${ctx.dataset.kind} ${scenario.name}: ${scenario.subscribers} subscriptions, ${scenario.rounds} rounds`);
  try {
    row.result = await fanout(pin, {
      url: service.url,
      token: ctx.schedulingToken,
      subscribers: scenario.subscribers,
      rounds: scenario.rounds,
      query,
      variables,
      callPath: call.path,
      times: call.times,
    });
    const all = row.result.rounds.map((r) => r.max);
    log(`${ctx.dataset.kind} ${scenario.name}: all ${scenario.subscribers} received in median ${median(all).toFixed(1)} ms (worst round ${Math.max(...all).toFixed(1)} ms)`);
  } catch (error) {
    row.error = String((error as Error).message);
    log(`${ctx.dataset.kind} ${scenario.name}: ${row.error}`);
  }
  return row;
}

async function runSustained(scenario: SustainedScenario, ctx: ScenarioContext, service: Running, pin: ReturnType<typeof pinning>): Promise<SustainedRow> {
  const row: SustainedRow = { scenario: scenario.name, db: ctx.dataset.kind, rate: scenario.rate };
  const { query, variables } = scenario.subscription(ctx);
  const call = scenario.call(ctx);
  log(`${ctx.dataset.kind} ${scenario.name}: ${scenario.subscribers} subscriptions, ${scenario.rate} events/s for ${scenario.seconds} s`);
  try {
    const before = service.cpuSeconds();
    row.result = await sustained(pin, {
      url: service.url,
      token: ctx.schedulingToken,
      subscribers: scenario.subscribers,
      rate: scenario.rate,
      seconds: scenario.seconds,
      query,
      variables,
      callPath: call.path,
      times: call.times,
    });
    const after = service.cpuSeconds();
    if (before !== undefined && after !== undefined) serviceCpu.set(row, after - before);
    const r = row.result;
    log(
      `${ctx.dataset.kind} ${scenario.name}: ${r.writes} events to ${r.connected} subscribers: missing ${r.missing}, duplicates ${r.duplicates}, out of order ${r.outOfOrder}; ` +
        `slowest subscriber p50 ${fmt(r.slowest.p50, 1)} ms, p99 ${fmt(r.slowest.p99, 1)} ms, max ${fmt(r.slowest.max, 1)} ms`,
    );
  } catch (error) {
    row.error = String((error as Error).message);
    log(`${ctx.dataset.kind} ${scenario.name}: ${row.error}`);
  }
  return row;
}

/** The service's CPU seconds over a sustained run (subscribing, readiness and writes). */
const serviceCpu = new WeakMap<SustainedRow, number>();

function sustainedTable(rows: SustainedRow[]): string {
  const lines = [
    '| Scenario | DB | Subscribers | Events (rate) | Deliveries | Missing | Duplicates | Out of order | All deliveries p50 / p99 / max ms | Slowest subscriber per event p50 / p99 / max ms | Service CPU s | Client CPU s | Notes |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    const res = r.result;
    if (!res) {
      lines.push(`| ${r.scenario} | ${r.db} | — | — | — | — | — | — | — | — | — | — | failed: ${r.error ?? 'unknown'} |`);
      continue;
    }
    const three = (x: { p50: number; p99: number; max: number }) => `${fmt(x.p50, 1)} / ${fmt(x.p99, 1)} / ${fmt(x.max, 1)}`;
    const notes = [
      res.connected < res.subscribers ? `${res.subscribers - res.connected} never connected` : '',
      res.writesBehind > 0 ? `the writer fell behind the rate on ${res.writesBehind} writes (${fmt(res.writeSeconds, 1)} s for all)` : '',
      res.errors > 0 ? `${res.errors} subscription errors` : '',
      res.completeEvents < res.writes ? `slowest-subscriber figures over the ${res.completeEvents} events every subscriber got` : '',
    ].filter(Boolean);
    lines.push(
      `| ${r.scenario} | ${r.db} | ${fmt(res.connected)} | ${fmt(res.writes)} (${fmt(r.rate)}/s) | ${fmt(res.deliveries)} | ${res.missing} | ${res.duplicates} | ${res.outOfOrder} | ` +
        `${three(res.all)} | ${three(res.slowest)} | ${fmt(serviceCpu.get(r), 1)} | ${fmt(res.clientCpuSeconds, 1)} | ${notes.join('; ')} |`,
    );
  }
  return lines.join('\n');
}

const SUSTAINED_HEADING = '## SSE under sustained writes';
const SUSTAINED_METHOD =
  'bench/sse-sustained.ts, in its own process pinned like the load generator: N subscriptions to `scheduledCallEvents(appId)` opened as a ' +
  "browser's EventSource opens them (GET /graphql/stream, the token as `access_token`), each proven live by a readiness event; then events " +
  'are written at a steady rate (one PATCH each, evenly spaced, rescheduling one call with a per-write `reason` that the event carries). ' +
  'Every subscriber must receive every event exactly once and in write order (missing, duplicates and out of order are counted over all ' +
  '(subscriber, event) pairs, after waiting up to 30 s for stragglers). Latency of a delivery = from sending the PATCH until that subscriber ' +
  'parsed the event. "Slowest subscriber per event" = for each event, the latency of the last subscriber to get it; its p50/p99/max are over the events.';

function fanoutTable(rows: FanoutRow[]): string {
  const lines = [
    '| Scenario | DB | Subscribers | Connected (ms to open all) | Rounds | p50 ms | p99 ms | All received ms (median of rounds) | Worst round ms | Missed | PATCH ms (median) | Client CPU ms a round (median) | Notes |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    const res = r.result;
    if (!res) {
      lines.push(`| ${r.scenario} | ${r.db} | — | — | — | — | — | — | — | — | — | — | failed: ${r.error ?? 'unknown'} |`);
      continue;
    }
    const rs = res.rounds;
    const missed = rs.reduce((n, x) => n + (res.subscribers - x.received), 0);
    lines.push(
      `| ${r.scenario} | ${r.db} | ${fmt(res.subscribers)} | ${fmt(res.connected)} (${fmt(res.connectMs)}) | ${rs.length} | ${fmt(median(rs.map((x) => x.p50)), 1)} | ` +
        `${fmt(median(rs.map((x) => x.p99)), 1)} | ${fmt(median(rs.map((x) => x.max)), 1)} | ${fmt(Math.max(...rs.map((x) => x.max)), 1)} | ${missed} | ` +
        `${fmt(median(rs.map((x) => x.patchMs)), 1)} | ${fmt(median(rs.map((x) => x.clientCpuMs)))} | ${res.errors > 0 ? `${res.errors} subscription errors` : ''} |`,
    );
  }
  return lines.join('\n');
}

function fanoutTargets(rows: FanoutRow[]): string[] {
  return rows
    .filter((r) => r.result && r.result.rounds.length > 0)
    .map((r) => {
      const rs = r.result!.rounds;
      const all = median(rs.map((x) => x.max));
      const missed = rs.some((x) => x.received < r.result!.subscribers);
      const full = r.result!.subscribers >= 1000;
      const ok = all < r.targetMs && !missed && full;
      return `- ${r.scenario} on ${r.db}: every one of ${fmt(r.result!.subscribers)} subscribers had the event after ${fmt(all, 1)} ms (median of ${rs.length} rounds; worst ${fmt(Math.max(...rs.map((x) => x.max)), 1)} ms) (target < ${r.targetMs} ms${full ? '' : ' for 1,000 subscribers; not judged'}): ${ok ? 'met' : '**not met**'}`;
    });
}

const FANOUT_HEADING = '## SSE fan-out';
const FANOUT_METHOD =
  'bench/sse.ts, in its own process pinned like the load generator: N graphql-sse subscriptions to `scheduledCallEvents(appId)` ' +
  '(distinct-connections mode, one HTTP request each, read by a minimal node:http event-stream reader so the client\'s own CPU stays small), all connected and each proven live by a readiness event, then per round ONE ' +
  'PATCH rescheduling a call (with a per-round `reason`, which every event payload carries). Latency per subscriber = from sending ' +
  'the PATCH until that subscriber parsed its event (PATCH commit, NOTIFY, fan-out, SSE write and the client\'s parsing included); ' +
  '"all received" = the slowest subscriber of a round. Medians over the rounds; "missed" = events not received within 15 s, summed.';

/** A table's row key: its first two cells (scenario, DB). */
const rowKey = (line: string) => line.split('|').slice(1, 3).map((c) => c.trim()).join('|');
/** A target line's key: up to its first colon ("- messages_page on postgres"). */
const targetKey = (line: string) => line.slice(0, line.indexOf(':'));

/** Replaces the rows of `table` (found by its header's start) with the same key, appends the others. */
function mergeTable(lines: string[], headerStart: string, rows: string[]): boolean {
  const header = lines.findIndex((l) => l.startsWith(headerStart));
  if (header < 0) return false;
  let end = header + 2;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  const fresh = rows.filter((row) => {
    for (let i = header + 2; i < end; i++) {
      if (rowKey(lines[i]!) === rowKey(row)) {
        lines[i] = row;
        return false;
      }
    }
    return true;
  });
  lines.splice(end, 0, ...fresh);
  return true;
}

function mergeInto(
  existing: string,
  update: { runLine: string; rows: string[]; fanoutRows: string[]; sustainedRows: string[]; peerRows: string[]; scale: string[]; targets: string[]; nowRunnable: string[] },
): string {
  const lines = existing.split('\n');
  const insertBefore = (heading: string, block: string[]) => {
    const at = lines.findIndex((l) => l.startsWith(heading));
    lines.splice(at < 0 ? lines.length : at, 0, ...block);
  };
  // The run line goes under the previous ones, after the "Measured ..." paragraph.
  // A rerun of the same scenarios on the same storages replaces its line.
  const sameRun = lines.findIndex((l) => l.startsWith(update.runLine.slice(0, update.runLine.indexOf(' (re)measured'))));
  if (sameRun >= 0) lines[sameRun] = update.runLine;
  else {
    const measured = lines.findIndex((l) => l.startsWith('Measured '));
    let after = measured;
    while (after + 2 < lines.length && lines[after + 2]!.startsWith('Rows of ')) after += 2;
    lines.splice(after + 1, 0, '', update.runLine);
  }
  dropSupersededRunLines(lines);
  if (update.rows.length > 0 && !mergeTable(lines, '| Scenario | DB | Messages', update.rows)) insertBefore('## Targets', [...table([]).split('\n'), ...update.rows, '']);
  if (update.peerRows.length > 0 && !mergeTable(lines, '| Server | DB | Messages', update.peerRows.slice(2))) {
    // Beside the main table: before the first section that follows it.
    const next = ['## SSE fan-out', '## SSE under sustained writes', '## Targets'].map((h) => lines.findIndex((l) => l.startsWith(h))).filter((i) => i >= 0);
    lines.splice(next.length > 0 ? Math.min(...next) : lines.length, 0, PEERS_HEADING, '', PEERS_METHOD, '', ...update.peerRows, '');
  }
  if (update.fanoutRows.length > 0 && !mergeTable(lines, '| Scenario | DB | Subscribers | Connected', update.fanoutRows.slice(2))) {
    insertBefore('## Targets', [FANOUT_HEADING, '', FANOUT_METHOD, '', ...update.fanoutRows, '']);
  }
  if (update.sustainedRows.length > 0 && !mergeTable(lines, '| Scenario | DB | Subscribers | Events', update.sustainedRows.slice(2))) {
    insertBefore('## Targets', [SUSTAINED_HEADING, '', SUSTAINED_METHOD, '', ...update.sustainedRows, '']);
  }
  // The scale section is one comparison: a new one replaces it whole.
  if (update.scale.length > 0) {
    const at = lines.findIndex((l) => l.startsWith(SCALE_HEADING_START));
    if (at >= 0) {
      let end = at + 1;
      while (end < lines.length && !lines[end]!.startsWith('## ')) end++;
      lines.splice(at, end - at);
    }
    insertBefore('## Targets', update.scale);
  }
  // Targets: replace lines with the same key, append the new ones after the section's last item.
  const targetsAt = lines.findIndex((l) => l.startsWith('## Targets'));
  if (targetsAt >= 0) {
    let end = targetsAt + 1;
    while (end < lines.length && !lines[end]!.startsWith('## ')) end++;
    let last = targetsAt + 1;
    for (let i = targetsAt + 1; i < end; i++) if (lines[i]!.startsWith('- ')) last = i;
    const fresh = update.targets.filter((t) => {
      const i = lines.findIndex((l, j) => j > targetsAt && j < end && l.startsWith('- ') && targetKey(l) === targetKey(t));
      if (i < 0) return true;
      lines[i] = t;
      return false;
    });
    lines.splice(last + 1, 0, ...fresh);
  }
  // Scenarios that now run leave "Not yet available" (and the section, once empty).
  const pendingAt = lines.findIndex((l) => l === '## Not yet available');
  if (pendingAt >= 0) {
    for (let i = lines.length - 1; i > pendingAt; i--) {
      if (update.nowRunnable.some((n) => lines[i]!.startsWith(`- ${n}: `))) lines.splice(i, 1);
    }
    let end = pendingAt + 1;
    while (end < lines.length && !lines[end]!.startsWith('## ')) end++;
    if (!lines.slice(pendingAt + 1, end).some((l) => l.startsWith('- '))) lines.splice(pendingAt, end - pendingAt);
  }
  return lines.join('\n');
}

async function postgresReachable(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

function table(rows: Row[]): string {
  const lines = [
    '| Scenario | DB | Messages | Conns | req/s | p50 ms | p99 ms | Errors | Floor req/s | Floor p99 ms | Ratio to floor | CPU µs/req (floor) | Notes |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    const ratio = r.ratio !== undefined ? r.ratio.toFixed(2) : '—';
    // A paced scenario's latencies are a few ms: tenths of a ms are shown (bench/paced.ts times them so).
    const ms = r.rate !== undefined ? 1 : 0;
    lines.push(
      `| ${r.scenario} | ${r.db} | ${fmt(r.messages)} | ${r.connections}${r.rate !== undefined ? ` @ ${fmt(r.rate)}/s` : ''} | ${fmt(r.service?.rps)} | ${fmt(r.service?.p50, ms)} | ${fmt(r.service?.p99, ms)} | ` +
        `${r.service ? r.service.errors : '—'} | ${fmt(r.floor?.rps)} | ${fmt(r.floor?.p99, ms)} | ${ratio} | ` +
        `${fmt(r.service?.cpuUs)}${r.floor?.cpuUs !== undefined ? ` (${fmt(r.floor.cpuUs)})` : ''} | ${r.notes.join('; ')} |`,
    );
  }
  return lines.join('\n');
}

/** Lists the service answers page by page over REST; on PostgreSQL at 1M messages their bar is raised. */
const REST_LISTS = new Set(['messages_page', 'messages_filtered', 'messages_search', 'messages_deep_cursor', 'campaigns_search']);

/** The least ratio to the floor a row must reach: raised on PostgreSQL at 1M messages and more, where the floor is fastest. */
function ratioGoal(r: Row): number {
  const raised = r.db === 'postgres' && r.messages >= 1_000_000;
  if (r.scenario.startsWith('graphql_')) return raised ? 0.8 : 0.6;
  return raised && REST_LISTS.has(r.scenario) ? 0.85 : 0.7;
}

function targets(rows: Row[]): string[] {
  const out: string[] = [];
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  for (const r of rows) {
    if (!r.service || r.ratio === undefined) continue;
    const ratio = r.ratio;
    const goal = ratioGoal(r);
    out.push(`- ${r.scenario} on ${r.db}: ${ratio.toFixed(2)} of the floor (target ≥ ${goal}): ${met(ratio >= goal)}`);
  }
  for (const r of rows.filter((x) => (x.scenario === 'messages_page' || x.scenario === 'messages_page_paced') && x.service)) {
    const load = r.rate !== undefined ? `${r.connections} connections, ${fmt(r.rate)} req/s offered` : `${r.connections} connections at saturation`;
    const floor = r.floor ? `; floor ${fmt(r.floor.p99, 1)} ms` : '';
    const scope = r.db === 'postgres' && r.messages >= 1_000_000 ? '' : '; the target is for PostgreSQL with 1M rows';
    out.push(`- ${r.scenario} p99 on ${r.db} (${fmt(r.messages)} messages, ${load}): ${fmt(r.service!.p99, 1)} ms${floor} (target < 25 ms${scope}): ${met(r.service!.p99 < 25)}`);
  }
  for (const r of rows.filter((x) => x.compute?.targetMs !== undefined)) {
    const c = r.compute!;
    out.push(`- ${r.scenario} on ${r.db}: ${c.label} median ${c.medianMs.toFixed(3)} ms (p99 ${c.p99Ms.toFixed(3)} ms) (target < ${c.targetMs} ms of compute): ${met(c.medianMs < c.targetMs!)}`);
  }
  for (const r of rows.filter((x) => x.scenario.startsWith('metrics_daily_90d') && x.service)) {
    out.push(`- ${r.scenario} p50 on ${r.db} under ${r.connections} connections: ${r.service!.p50} ms (target < 50 ms): ${met(r.service!.p50 < 50)}`);
  }
  return out;
}

async function main() {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const known = new Set([...scenarios, ...fanoutScenarios, ...sustainedScenarios, ...peersScenarios, ...pendingScenarios].map((s) => s.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario ${unknown.join(', ')}; scenarios: ${[...known].join(', ')}\n`);
    process.exit(2);
  }
  const selected = names.length > 0 ? scenarios.filter((s) => names.includes(s.name)) : scenarios;
  const selectedFanout = names.length > 0 ? fanoutScenarios.filter((s) => names.includes(s.name)) : fanoutScenarios;
  const selectedSustained = names.length > 0 ? sustainedScenarios.filter((s) => names.includes(s.name)) : sustainedScenarios;
  const selectedPeers = names.length > 0 ? peersScenarios.filter((s) => names.includes(s.name)) : env.BENCH_PEERS === '0' ? [] : peersScenarios;
  const pending = names.length > 0 ? pendingScenarios.filter((s) => names.includes(s.name)) : pendingScenarios;
  for (const p of pending) log(`${p.name}: not yet available (${p.reason})`);
  if (selected.length === 0 && selectedFanout.length === 0 && selectedSustained.length === 0 && selectedPeers.length === 0) {
    log('nothing to measure; docs/BENCHMARKS.md left as it is');
    return;
  }

  const requested = (env.BENCH_DB ?? 'postgres,pglite').split(',').map((s) => s.trim()) as StorageKind[];
  const kinds: StorageKind[] = [];
  const skipped: string[] = [];
  for (const kind of requested) {
    if (kind !== 'postgres' && kind !== 'pglite') throw new Error(`BENCH_DB: unknown storage ${kind}`);
    if (kind === 'postgres' && !(await postgresReachable(settings.pgUrl))) {
      if (env.BENCH_DB) throw new Error(`PostgreSQL not reachable at ${settings.pgUrl} (BENCH_PG_URL)`);
      skipped.push(`postgres skipped: nothing answers at ${settings.pgUrl} (set BENCH_PG_URL)`);
      log(skipped.at(-1)!);
      continue;
    }
    kinds.push(kind);
  }

  const info = await machine(kinds.includes('postgres') ? settings.pgUrl : undefined);
  const pin = pinning(os.cpus().length);
  log(`machine: ${info.cpu}, ${info.cores} cores, node ${info.node}; pinning ${pin.server ? `service+floor on CPU ${pin.server}, load on CPU ${pin.load}` : 'off'}`);
  const postgresCpu = kinds.includes('postgres') ? env.BENCH_PG_CPU : undefined;
  if (postgresCpu) {
    const unpin = pinPostgres(postgresCpu);
    process.once('exit', unpin);
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(code));
    log(`PostgreSQL pinned to CPU ${postgresCpu} for this run (BENCH_PG_CPU); put back on exit`);
  }

  log('building (npm run build)');
  if (spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');

  const rows: Row[] = [];
  const fanoutRows: FanoutRow[] = [];
  const sustainedRows: SustainedRow[] = [];
  const peerRows: PeerRow[] = [];
  const datasets: Dataset[] = [];
  for (const kind of kinds) {
    const messages = kind === 'pglite' && env.BENCH_PGLITE_MESSAGES ? Number(env.BENCH_PGLITE_MESSAGES) : settings.messages;
    if (kind !== 'postgres' && selected.length === 0 && selectedFanout.length === 0 && selectedSustained.length === 0) {
      // Only the peers were asked for, and they cannot run here: no dataset or service needed.
      for (const scenario of selectedPeers) peerRows.push(skippedPeers(scenario.name, kind, messages, settings.connections));
      continue;
    }
    const dataset = await ensureDataset({ kind, messages, adminUrl: settings.pgUrl });
    datasets.push(dataset);
    // In-process measurements first: on PGlite the service then owns the data directory.
    const computed = new Map<string, ComputeResult>();
    for (const scenario of selected.filter((s) => s.compute)) {
      log(`${kind} ${scenario.name}: measuring in process`);
      computed.set(scenario.name, await scenario.compute!(dataset));
    }
    const service = await startService(dataset, pin);
    let floor: Running | undefined;
    try {
      floor = await startFloor(dataset, pin);
      const ctx: ScenarioContext = {
        dataset,
        token: await issueToken(service, dataset),
        schedulingToken: await issueToken(service, dataset.scheduling!),
      };
      if (settings.warmup > 0) await tour(selected, ctx, service, floor, pin);
      for (const scenario of selected) rows.push(await runScenario(scenario, ctx, service, floor, pin, computed.get(scenario.name)));
      for (const scenario of selectedPeers) peerRows.push(...(await runPeers(scenario, ctx, service, pin)));
      for (const scenario of selectedFanout) fanoutRows.push(await runFanout(scenario, ctx, service, pin));
      for (const scenario of selectedSustained) sustainedRows.push(await runSustained(scenario, ctx, service, pin));
    } finally {
      await service.stop();
      await floor?.stop();
    }
  }
  // The scale curve: the same scenarios again on a larger PostgreSQL dataset (BENCH_SCALE messages).
  const scaleRows: Row[] = [];
  const scaleAt = Number(env.BENCH_SCALE ?? 0);
  const scaled = selected.filter((s) => (SCALE_SCENARIOS as readonly string[]).includes(s.name));
  if (scaleAt > 0 && kinds.includes('postgres') && scaled.length > 0) {
    const dataset = await ensureDataset({ kind: 'postgres', messages: scaleAt, adminUrl: settings.pgUrl });
    datasets.push(dataset);
    const service = await startService(dataset, pin);
    let floor: Running | undefined;
    try {
      floor = await startFloor(dataset, pin);
      const ctx: ScenarioContext = { dataset, token: await issueToken(service, dataset), schedulingToken: await issueToken(service, dataset.scheduling!) };
      if (settings.warmup > 0) await tour(scaled, ctx, service, floor, pin);
      for (const scenario of scaled) scaleRows.push(await runScenario(scenario, ctx, service, floor, pin));
    } finally {
      await service.stop();
      await floor?.stop();
    }
  }
  const scaleSmall = rows.filter((r) => r.db === 'postgres');
  const scaleSection = scaleRows.length > 0 ? [scaleHeading(settings.messages, scaleAt), '', scaleMethod(settings.messages, scaleAt), '', scaleTable(scaleSmall, scaleRows), ''] : [];

  for (const r of rows) {
    if (!r.service) continue;
    const scenario = selected.find((s) => s.name === r.scenario);
    const versus = scenario?.versus && rows.find((x) => x.scenario === scenario.versus && x.db === r.db && x.service);
    if (versus) {
      const cpu = r.service.cpuUs && versus.service!.cpuUs ? `, ${(r.service.cpuUs / versus.service!.cpuUs).toFixed(2)}× its CPU/req` : '';
      r.notes.push(`${(r.service.rps / versus.service!.rps).toFixed(2)}× the req/s of REST ${versus.scenario}${cpu}`);
    }
  }

  const command = [
    ...Object.entries(env)
      .filter(([k]) => k.startsWith('BENCH_'))
      .map(([k, v]) => `${k}=${v}`),
    'npm run bench',
    ...(names.length > 0 ? ['--', ...names] : []),
  ].join(' ');
  const machineLine =
    `${info.cpu}, ${info.cores} cores, ${info.memoryGiB} GiB, ${info.os}; Node ${info.node}` +
    (info.postgres ? `; PostgreSQL ${info.postgres}` : '') +
    `; ${Object.entries(info.packages).map(([p, v]) => `${p} ${v}`).join(', ')}`;
  const markdown = [
    '# Benchmarks',
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC with \`${command}\` (bench/run.ts; see docs/development.md, "Benchmarks").`,
    '',
    `**Machine:** ${machineLine}.`,
    '',
    `**Method:** the built service (\`node dist/src/main.js\`, LOG_LEVEL=${env.BENCH_LOG_LEVEL ?? 'warn'}, in-memory rate limits) and the floor ` +
      `(bench/floor/server.ts: raw \`node:http\` running the same SQL through postgres.js, or PGlite in-process on a copy of the data) ` +
      `are driven over loopback by autocannon in a separate process: warm-up each in slices of ${settings.warmup} s until one is within 5% of the one before, then ${settings.rounds} rounds of ` +
      `${settings.duration} s alternating service and floor; the table shows medians of the rounds (errors summed). ` +
      'Ratio to floor = the median over the rounds of service req/s ÷ floor req/s within a round (each round runs the two back to back, ' +
      'so drift of the machine over minutes cancels). ' +
      (pin.server ? `Service and floor pinned to CPU ${pin.server}, load generator to CPU ${pin.load} (taskset); ${postgresCpu ? `PostgreSQL pinned to CPU ${postgresCpu} (BENCH_PG_CPU). ` : 'PostgreSQL itself is not pinned. '}` : 'No CPU pinning. ') +
      `Dataset: ${datasets.map((d) => `${d.kind}: ${fmt(d.messages)} messages in the big app + ${fmt(d.otherMessages)} in a second app, seeded ${d.seededAt.slice(0, 10)}`).join('; ')}. ` +
      'CPU µs/req = the server process\'s CPU time over the rounds ÷ requests ' +
      '(/proc; database CPU not included): steadier than req/s on a shared machine. On PostgreSQL the notes give the database\'s own CPU the same way ' +
      `("PostgreSQL CPU µs/req": every process named postgres on the machine, bench/proc-cpu.ts); service, database and load generator share the ${info.cores} cores, so a ` +
      "ratio is set by their sum, not by the server's CPU alone. The service does per request what the floor does not: JWT verification, " +
      'a revocation/quota query, rate limiting, GraphQL execution with scope checks and input validation.',
    '',
    table(rows),
    '',
    ...(skipped.length > 0 ? [`Skipped: ${skipped.join('; ')}.`, ''] : []),
    ...(peerRows.length > 0 ? [PEERS_HEADING, '', PEERS_METHOD, '', peersTable(peerRows), ''] : []),
    ...(fanoutRows.length > 0 ? [FANOUT_HEADING, '', FANOUT_METHOD, '', fanoutTable(fanoutRows), ''] : []),
    ...(sustainedRows.length > 0 ? [SUSTAINED_HEADING, '', SUSTAINED_METHOD, '', sustainedTable(sustainedRows), ''] : []),
    ...scaleSection,
    '## Targets',
    '',
    ...targets(rows),
    ...peersTargets(peerRows),
    ...fanoutTargets(fanoutRows),
    ...scaleTargets(scaleSmall, scaleRows),
    '',
    ...(pendingScenarios.length > 0
      ? [
          '## Not yet available',
          '',
          'Named as targets but not in the service yet; the harness takes them as modules in bench/scenarios/ once they exist.',
          '',
          ...pendingScenarios.map((p) => `- ${p.name}: ${p.title}: not yet available (${p.reason})`),
          '',
        ]
      : []),
  ].join('\n');
  mkdirSync(path.dirname(settings.out), { recursive: true });
  // A run of named scenarios merges its rows into the existing document (other rows, the notes
  // and earlier runs' lines stay); a full run, or BENCH_REPLACE=1, writes the document anew.
  const partial = names.length > 0 && env.BENCH_REPLACE !== '1' && existsSync(settings.out);
  const written = partial
    ? mergeInto(readFileSync(settings.out, 'utf8'), {
        runLine: `Rows of ${[...selected, ...selectedPeers, ...selectedFanout, ...selectedSustained].map((x) => x.name).join(', ')} on ${kinds.join(', ')} (re)measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC with \`${command}\` on ${machineLine}; same method; the other rows are from the run above.`,
        rows: table(rows).split('\n').slice(2),
        fanoutRows: fanoutRows.length > 0 ? fanoutTable(fanoutRows).split('\n') : [],
        sustainedRows: sustainedRows.length > 0 ? sustainedTable(sustainedRows).split('\n') : [],
        peerRows: peerRows.length > 0 ? peersTable(peerRows).split('\n') : [],
        scale: scaleSection,
        targets: [...targets(rows), ...peersTargets(peerRows), ...fanoutTargets(fanoutRows), ...scaleTargets(scaleSmall, scaleRows)],
        nowRunnable: [...scenarios, ...fanoutScenarios, ...sustainedScenarios, ...peersScenarios].map((x) => x.name),
      })
    : markdown;
  process.stdout.write(`${written}\n`);
  writeFileSync(settings.out, written);
  writeFileSync(path.join(DATA, 'last-run.json'), `${JSON.stringify({ settings, info, rows, peerRows, fanoutRows, sustainedRows, scaleRows }, null, 2)}\n`);
  log(`wrote ${path.relative(ROOT, settings.out)}`);
}

await main();
