/** Child processes of a run: the built service, the floor, the peers, the load generator; pinned apart with taskset. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { ROOT, storageEnv } from './dataset.js';
import { pidsOfProcessesNamed, processCpuSeconds } from './proc-cpu.js';
import type { Dataset } from './types.js';

export interface Pinning {
  server?: string;
  load?: string;
}

/** Server on the last core, load generator on the first, when taskset exists and there are two cores. */
export function pinning(cores: number): Pinning {
  if (process.env.BENCH_PIN === '0' || cores < 2) return {};
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) return {};
  return { server: String(cores - 1), load: '0' };
}

/** A process's CPU list as `taskset -cp` shows it ("pid 42's current affinity list: 0,1"), or undefined. */
export function affinityOf(pid: number): string | undefined {
  const shown = spawnSync('taskset', ['-cp', String(pid)]).stdout?.toString() ?? '';
  return /affinity list:\s*([\d,-]+)\s*$/.exec(shown)?.[1];
}

/**
 * BENCH_PG_CPU: the local PostgreSQL (the postmaster, its workers and backends, every process
 * named postgres) moved onto that CPU for the run, beside the load generator and off the
 * server's. For profiling: a database backend woken on the server's CPU preempts it, and V8's
 * profiler charges the time the server waited to the frame it stopped in, most often the socket
 * write that woke the backend. Backends started later inherit the postmaster's affinity. Returns
 * what puts every process still there back on the CPUs it had.
 */
export function pinPostgres(cpu: string | undefined): () => void {
  if (cpu === undefined || cpu === '') return () => {};
  const before = new Map<number, string>();
  const restore = () => {
    for (const [pid, list] of before) spawnSync('taskset', ['-cp', list, String(pid)]);
    // Backends started meanwhile took the postmaster's pinned list: they get the list it had
    // (the first listed, /proc lists by pid, and the postmaster started before its children).
    const postmasterList = before.values().next().value;
    if (postmasterList === undefined) return;
    for (const pid of pidsOfProcessesNamed('postgres')) if (!before.has(pid)) spawnSync('taskset', ['-cp', postmasterList, String(pid)]);
  };
  for (const pid of pidsOfProcessesNamed('postgres')) {
    const list = affinityOf(pid);
    if (!list) continue; // exited since it was listed
    if (spawnSync('taskset', ['-cp', cpu, String(pid)]).status !== 0) {
      restore();
      throw new Error(`BENCH_PG_CPU=${cpu}: taskset could not move PostgreSQL process ${pid}`);
    }
    before.set(pid, list);
  }
  if (before.size === 0) throw new Error(`BENCH_PG_CPU=${cpu}: no process named postgres on this machine`);
  return restore;
}

const pinned = (cpu: string | undefined, command: string, args: string[]): [string, string[]] =>
  cpu ? ['taskset', ['-c', cpu, command, ...args]] : [command, args];

/**
 * The node binary the service and the floor run under: BENCH_NODE (e.g. Node 24 from
 * scripts/node-lts.sh) or the harness's own. The load generators stay on the harness's node, so
 * two runs under different BENCH_NODE drive their servers alike.
 */
export function serverNode(): string {
  const chosen = process.env.BENCH_NODE;
  if (!chosen) return process.execPath;
  const probe = spawnSync(chosen, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0 || !probe.stdout.startsWith('v')) {
    throw new Error(`BENCH_NODE=${chosen} is not a runnable node binary${probe.error ? ` (${probe.error.message})` : ''}`);
  }
  return chosen;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Running {
  url: string;
  /** CPU seconds the process has used so far (Linux /proc), for CPU time per request. */
  cpuSeconds: () => number | undefined;
  stop: () => Promise<void>;
}

const cpuOf = (child: ChildProcess) => () => processCpuSeconds(child.pid);

function stopper(child: ChildProcess, graceMs = 15_000): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

async function waitFor(url: string, child: ChildProcess, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s`);
}

/** How a tool other than the harness starts the service: under another program, given longer to stop. */
export interface Launch {
  /** A command line the node binary and its arguments are appended to (`valgrind --tool=callgrind ...`). */
  prefix?: string[];
  /** How long the service has to exit after SIGTERM before it is killed (15 s). */
  graceMs?: number;
  /** The checkout whose built `dist/` runs (this one). */
  root?: string;
}

/** The real service: `node dist/src/main.js` (built first by the harness, run by serverNode()) on the dataset's storage. */
export async function startService(dataset: Dataset, pin: Pinning, launch: Launch = {}): Promise<Running> {
  const [port, videoPort] = [await freePort(), await freePort()];
  const env = {
    ...storageEnv(dataset.kind, dataset.kind === 'postgres' ? dataset.databaseUrl! : dataset.dataDir!),
    PORT: String(port),
    VIDEO_PORT: String(videoPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    TOKEN_TTL_SECONDS: '86400',
    // The SSE scenarios hold up to 10,000 streams of one client on one app, past the default caps.
    STREAMS_PER_CLIENT: '12000',
    STREAMS_PER_APP: '12000',
    MAX_CONNECTIONS: '12000',
    // One client drives every connection of a scenario: past the default in-flight cap (16) the
    // surplus would be answered 429 instead of measured.
    CLIENT_MAX_CONCURRENT: '1000',
    // token_issue measures the grant itself: one client minting thousands a second, past the per-client cap.
    TOKENS_PER_CLIENT_MINUTE: '2000000000',
    NODE_ENV: 'production',
  };
  const nodeArgs = [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), 'dist/src/main.js'];
  const [first, ...rest] = [...(launch.prefix ?? []), serverNode(), ...nodeArgs];
  const [command, args] = pinned(pin.server, first!, rest);
  const child = spawn(command, args, { cwd: launch.root ?? ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/readyz`, child, 'service');
  return { url, cpuSeconds: cpuOf(child), stop: stopper(child, launch.graceMs) };
}

/** The floor (bench/floor/server.ts) on the same data, under the same node as the service. */
export async function startFloor(dataset: Dataset, pin: Pinning): Promise<Running> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, FLOOR_PORT: String(port), NODE_ENV: 'production' };
  if (dataset.kind === 'postgres') env.FLOOR_DATABASE_URL = dataset.databaseUrl;
  else env.FLOOR_DATA_DIR = dataset.floorDataDir;
  const [command, args] = pinned(pin.server, serverNode(), [...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', 'bench/floor/server.ts']);
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child, 'floor');
  return { url, cpuSeconds: cpuOf(child), stop: stopper(child) };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Server CPU time per request in microseconds (undefined where /proc is missing). */
  cpuUs?: number;
  /** The local PostgreSQL's CPU time per request in microseconds (PostgreSQL datasets only). */
  dbCpuUs?: number;
}

/**
 * One load run in its own (pinned) process, options as JSON on stdin (a rotation is too long for
 * argv): autocannon (bench/load.ts), or with `rate` the open-loop generator (bench/paced.ts).
 */
export function load(pin: Pinning, options: Record<string, unknown>): Promise<LoadResult> {
  const script = options.rate !== undefined ? 'bench/paced.ts' : 'bench/load.ts';
  const [command, args] = pinned(pin.load, process.execPath, ['--import', 'tsx', script, '-']);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin!.end(JSON.stringify(options));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load generator exited ${code}`))));
  });
}

export interface FanoutRound {
  received: number;
  p50: number;
  p99: number;
  max: number;
  patchMs: number;
  /** CPU the subscribing client itself spent in the round (receiving and parsing 1,000 events). */
  clientCpuMs: number;
}
export interface FanoutResult {
  subscribers: number;
  connected: number;
  connectMs: number;
  ready: number;
  errors: number;
  rounds: FanoutRound[];
}

/** The SSE fan-out client in its own (pinned) process: bench/sse.ts. */
export function fanout(pin: Pinning, options: Record<string, unknown>): Promise<FanoutResult> {
  const [command, args] = pinned(pin.load, process.execPath, ['--import', 'tsx', 'bench/sse.ts', JSON.stringify(options)]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as FanoutResult) : reject(new Error(`SSE fan-out client exited ${code}`))));
  });
}

export interface SustainedResult {
  subscribers: number;
  connected: number;
  connectMs: number;
  ready: number;
  writes: number;
  writeSeconds: number;
  /** Writes that started more than one interval late (the writer could not keep the rate). */
  writesBehind: number;
  deliveries: number;
  completeEvents: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  errors: number;
  /** Over every (subscriber, event) delivery. */
  all: { p50: number; p99: number; max: number };
  /** Over the events every subscriber got, of the slowest subscriber's latency for each. */
  slowest: { p50: number; p99: number; max: number };
  clientCpuSeconds: number;
}

/** The sustained-writes SSE client in its own (pinned) process: bench/sse-sustained.ts. */
export function sustained(pin: Pinning, options: Record<string, unknown>): Promise<SustainedResult> {
  const [command, args] = pinned(pin.load, process.execPath, ['--import', 'tsx', 'bench/sse-sustained.ts', JSON.stringify(options)]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as SustainedResult) : reject(new Error(`SSE sustained client exited ${code}`))));
  });
}

export const PEERS_DIR = path.join(ROOT, 'bench', 'peers');

const majorOf = (node: string) => Number(/^v(\d+)/.exec(spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout ?? '')?.[1] ?? 0);

/**
 * The node a peer runs under: serverNode() when it is new enough (so peers and service share a
 * binary where they can), else scripts/node-lts.sh's official binary of `minMajor`.
 */
export function peerNode(minMajor: number): string {
  const server = serverNode();
  if (majorOf(server) >= minMajor) return server;
  const lts = spawnSync(path.join(ROOT, 'scripts', 'node-lts.sh'), [String(minMajor)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (lts.status !== 0) throw new Error(`scripts/node-lts.sh ${minMajor} failed: no Node.js ${minMajor} for the peers`);
  return path.join(lts.stdout.trim(), 'node');
}

/**
 * bench/peers/node_modules from its own lockfile (`npm ci --prefix bench/peers`) when missing,
 * npm running under `node` (the newest the peers need, so engine checks pass). The service's
 * dependencies and CI's `npm ci` never see these packages.
 */
export function ensurePeersInstalled(node: string): void {
  if (existsSync(path.join(PEERS_DIR, 'node_modules', '.package-lock.json'))) return;
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  const result = spawnSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm ci --prefix bench/peers exited ${result.status ?? result.error?.message}`);
}

/** One peer GraphQL server (bench/peers/<script>) on the PostgreSQL dataset, pinned like the service. */
export async function startPeer(script: string, node: string, databaseUrl: string, pin: Pinning): Promise<Running> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PEER_PORT: String(port), PEER_DATABASE_URL: databaseUrl, NODE_ENV: 'production' };
  const [command, args] = pinned(pin.server, node, [script]);
  const child = spawn(command, args, { cwd: PEERS_DIR, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child, `peer ${script}`);
  return { url, cpuSeconds: cpuOf(child), stop: stopper(child) };
}
