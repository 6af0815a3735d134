/**
 * Token issuance throughput: `npx tsx bench/token-issue.ts [seconds] [connections]`.
 * Starts the service in a child process (embedded PGlite in memory, or a fresh PostgreSQL
 * database when DATABASE_URL is set) with one registered client, pinned to the last core when
 * taskset exists, and drives POST /api/v1/oauth/token with autocannon from this process (run it
 * as `taskset -c 0 npx tsx ...` to keep the two apart).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const ROLE = process.argv[2];

async function serve(): Promise<void> {
  const { createApp, createClient } = await import('../src/apps/service.js');
  const { createRuntime } = await import('../src/boot.js');
  const { loadConfig } = await import('../src/config.js');
  const { startServers } = await import('../src/http/server.js');
  const { createLogger } = await import('../src/log.js');
  const { createFreshDatabase } = await import('../test/helpers/server.js');
  const database = process.env.DATABASE_URL ? await createFreshDatabase(process.env.DATABASE_URL) : undefined;
  const config = loadConfig({ ...process.env, DATA_DIR: 'memory', DEMO: '0', LOG_LEVEL: 'silent', DATABASE_URL: database?.url, TOKENS_PER_CLIENT_MINUTE: '2000000000' });
  const runtime = await createRuntime(config, createLogger(config.LOG_LEVEL));
  const servers = await startServers(runtime, { main: 0, video: 0, host: '127.0.0.1' });
  const app = await createApp(runtime.database.db, { name: 'token bench' });
  const client = await createClient(runtime.database.db, { apps: [app.id], scopes: ['messages:read'] });
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${servers.mainPort}`, clientId: client.client_id, clientSecret: client.client_secret })}\n`);
  const stop = async () => {
    await servers.close();
    await runtime.database.close();
    await database?.drop();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 8);
  const pin = spawnSync('taskset', ['-c', '1', 'true']).status === 0;
  // TOKEN_BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops.
  const profile = process.env.TOKEN_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.TOKEN_BENCH_CPU_PROF}`] : [];
  const args = [...profile, '--import', 'tsx', new URL(import.meta.url).pathname, 'serve'];
  const child = pin ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { url, clientId, clientSecret } = JSON.parse(first) as { url: string; clientId: string; clientSecret: string };
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const run = (duration: number) =>
    autocannon({ url: `${url}/api/v1/oauth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration });
  await run(2); // warm-up: JIT, first key use
  const result = await run(seconds);
  console.log(
    JSON.stringify({
      storage: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      pinned: pin,
      connections,
      seconds,
      reqPerSec: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    }),
  );
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

await (ROLE === 'serve' ? serve() : main());
